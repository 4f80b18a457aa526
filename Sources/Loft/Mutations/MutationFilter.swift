/// Which calls of a client's mutation cache an operation looks at (`QueryClient.mutations(matching:)`,
/// `isMutating(matching:)`, `cancelMutations(matching:)`, `MutationList`).
///
/// ```swift
/// client.mutations(matching: MutationFilter(key: ["todos"], status: .pending))
/// ```
public struct MutationFilter: Sendable {
    /// Calls whose `mutationKey` starts with this prefix (or equals it, with `exact`); nil: every call.
    public var key: QueryKey?
    /// Match `key` exactly rather than as a prefix. Default false.
    public var exact: Bool
    /// Only calls with this status; nil: any.
    public var status: MutationStatus?
    /// Only calls of this scope; nil: any.
    public var scope: String?
    /// A last test on each call that the other fields let through.
    public var predicate: (@Sendable (MutationInfo) -> Bool)?

    /// Every call.
    public static let all = MutationFilter()

    /// Makes a filter; every field defaults to "any" (`exact` to false).
    public init(
        key: QueryKey? = nil, exact: Bool = false, status: MutationStatus? = nil, scope: String? = nil,
        predicate: (@Sendable (MutationInfo) -> Bool)? = nil
    ) {
        (self.key, self.exact, self.status, self.scope, self.predicate) = (key, exact, status, scope, predicate)
    }

    /// Whether `info` passes the filter.
    public func matches(_ info: MutationInfo) -> Bool {
        if let key {
            guard let own = info.mutationKey, exact ? own == key : own.hasPrefix(key) else { return false }
        }
        if let status, info.status != status { return false }
        if let scope, info.scope != scope { return false }
        return predicate?(info) ?? true
    }
}
