/// Everything a cache entry knows at one moment, with its data type-erased (typed views are `QuerySnapshot`).
package struct EntrySnapshot: Sendable {
    package var data: (any Sendable)?
    package var dataUpdatedAt: SchedulerInstant?
    package var error: (any Error)?
    package var errorUpdatedAt: SchedulerInstant?
    package var status: QueryStatus = .pending
    package var fetchStatus: FetchStatus = .idle
    /// Failures of the current (or last) fetch, retries included; reset by a success.
    package var failureCount = 0
    /// Set by `invalidateQueries`: stale whatever `staleTime` says, until the next success.
    package var isInvalidated = false
    package var observerCount = 0
    /// The `meta` of the fetch in flight (nil when idle): which page an infinite query is fetching.
    package var fetchMeta: (any Sendable)?
    /// The data was read back from the persistent cache and no fetch has replaced it yet.
    package var isRestored = false

    package init() {}

    /// Whether the data is stale at `now` for an observer whose freshness window is `staleTime`.
    package func isStale(at now: SchedulerInstant, staleTime: Duration) -> Bool {
        guard let dataUpdatedAt, data != nil else { return true }
        if isInvalidated { return true }
        return dataUpdatedAt + staleTime <= now
    }
}
