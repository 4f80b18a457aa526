/// What a mutation's `onSuccess` receives to refresh the queries that its change made stale. It can be
/// called as a function (Pigeon's spelling) or through `invalidate`.
///
/// ```swift
/// createUser.execute(with: newUser) { user, invalidate in
///     invalidate("users", .lastData)                // refetch the lists with their last request
///     invalidate(["user", user.id], .newData(user.id))
/// }
/// ```
public struct QueryInvalidator: Sendable {
    /// Which request the invalidated queries refetch with.
    public enum Mode: Sendable {
        /// The request each query last used.
        case lastData
        /// This request instead (queries whose request type differs are left alone).
        case newData(any Sendable)
    }

    private let client: QueryClient

    init(client: QueryClient) {
        self.client = client
    }

    /// Marks the entries under `key` stale and refetches the active ones, as `mode` says.
    ///
    /// - Returns: the refetches started, whose `settled()` a caller who wants to wait awaits.
    @discardableResult
    public func invalidate(_ key: QueryKey, _ mode: Mode = .lastData) -> StartedRefetches {
        switch mode {
        case .lastData:
            return client.invalidateQueries(key)
        case .newData(let request):
            client.invalidateQueries(key, refetchType: .none)
            return client.refetchQueries(key, withRequest: request)
        }
    }

    /// `invalidate(key, mode)`, called as a function: `invalidate("users", .lastData)`.
    @discardableResult
    public func callAsFunction(_ key: QueryKey, _ mode: Mode = .lastData) -> StartedRefetches {
        invalidate(key, mode)
    }
}
