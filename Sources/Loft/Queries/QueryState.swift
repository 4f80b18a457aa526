/// What a query has to show: nothing asked yet, loading with nothing to show, an error with nothing to
/// show, or a value.
///
/// `.loading` means "fetching and nothing to show": a background refetch of a query that has data keeps
/// `.succeed(old)`, and a failed refetch does too (the error is in `QuerySnapshot.error`).
public enum QueryState<Value: Sendable>: Sendable {
    /// Nothing has been fetched and nothing is fetching.
    case idle
    /// The first fetch is running.
    case loading
    /// The fetch failed and there is no data to show.
    case failed(any Error)
    /// There is a value to show (possibly being refetched, or older than a failed refetch).
    case succeed(Value)

    /// The value of `.succeed`, else nil.
    public var value: Value? {
        if case .succeed(let value) = self { return value }
        return nil
    }

    /// The error of `.failed`, else nil.
    public var error: (any Error)? {
        if case .failed(let error) = self { return error }
        return nil
    }

    /// Whether this is `.loading`.
    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    /// Whether this is `.idle`.
    public var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }

    /// Whether two states show the same thing: same case, equal values (for `Equatable` values; otherwise
    /// never equal), the same error description.
    package func isSame(as other: QueryState<Value>) -> Bool {
        switch (self, other) {
        case (.idle, .idle), (.loading, .loading): true
        case (.failed(let lhs), .failed(let rhs)): "\(lhs)" == "\(rhs)"
        case (.succeed(let lhs), .succeed(let rhs)): areEqual(lhs, rhs)
        default: false
        }
    }
}
