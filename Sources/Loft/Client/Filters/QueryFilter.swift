/// Which of the entries under a key prefix a bulk operation acts on (TanStack's query filters, less the key,
/// which every bulk operation takes first).
///
/// ```swift
/// client.removeQueries("todos", filter: QueryFilter(type: .inactive))
/// client.invalidateQueries("todos", filter: QueryFilter(isStale: false, predicate: { $0.observerCount > 1 }))
/// let paused = client.isFetching(filter: QueryFilter(fetchStatus: .paused))
/// ```
///
/// Every condition that is set must hold; the default matches every entry.
public struct QueryFilter: Sendable {
    /// Active entries (an enabled observer), inactive ones, or all. Default `.all`.
    public var type: QueryTypeFilter
    /// Only stale (true) or only fresh (false) entries. Default: either.
    public var isStale: Bool?
    /// Only entries whose fetch status is this one. Default: any.
    public var fetchStatus: FetchStatus?
    /// Any other condition. Default: none.
    public var predicate: (@Sendable (QueryInfo) -> Bool)?

    /// Makes a filter; every argument defaults to "any".
    public init(
        type: QueryTypeFilter = .all, isStale: Bool? = nil, fetchStatus: FetchStatus? = nil,
        predicate: (@Sendable (QueryInfo) -> Bool)? = nil
    ) {
        self.type = type
        self.isStale = isStale
        self.fetchStatus = fetchStatus
        self.predicate = predicate
    }

    /// Every entry.
    public static let all = QueryFilter()
    /// Entries with an enabled observer.
    public static let active = QueryFilter(type: .active)
    /// Entries without one.
    public static let inactive = QueryFilter(type: .inactive)

    /// Whether `info` passes every condition. The predicate, a user closure, runs last.
    public func matches(_ info: QueryInfo) -> Bool {
        switch type {
        case .all: break
        case .active: guard info.isActive else { return false }
        case .inactive: guard !info.isActive else { return false }
        }
        if let isStale, info.isStale != isStale { return false }
        if let fetchStatus, info.fetchStatus != fetchStatus { return false }
        return predicate?(info) ?? true
    }

    /// Whether the filter looks at anything but the key.
    var isTrivial: Bool {
        type == .all && isStale == nil && fetchStatus == nil && predicate == nil
    }
}

/// Active, inactive, or all entries.
public enum QueryTypeFilter: String, Sendable, Hashable, Codable {
    /// Entries with an enabled observer.
    case active
    /// Entries without one.
    case inactive
    /// Both.
    case all
}
