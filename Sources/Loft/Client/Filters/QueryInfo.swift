/// What a query filter sees of one cache entry.
public struct QueryInfo: Sendable {
    /// The entry's key.
    public let key: QueryKey
    /// What data there is.
    public let status: QueryStatus
    /// What the network is doing.
    public let fetchStatus: FetchStatus
    /// When the data was last fetched or set.
    public let dataUpdatedAt: SchedulerInstant?
    /// Stale for one of its enabled observers; with none, only when it has no data or was invalidated (its age
    /// is not consulted: no observer's `staleTime` applies).
    public let isStale: Bool
    /// Whether an enabled query or consumer observes it.
    public let isActive: Bool
    /// Whether bulk operations leave it alone: every observer is disabled, or, with none, it was never fetched.
    public let isDisabled: Bool
    /// How many queries and consumers observe it.
    public let observerCount: Int
}
