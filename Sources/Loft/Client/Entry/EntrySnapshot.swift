/// Everything a cache entry knows at one moment, with its data type-erased (typed views are `QuerySnapshot`).
package struct EntrySnapshot: Sendable {
    package var data: (any Sendable)?
    /// Bumped each time `data` is replaced by a value that is not equal to it: a typed view runs `select` again
    /// only when it changes.
    package var dataVersion: UInt64 = 0
    package var dataUpdatedAt: SchedulerInstant?
    package var error: (any Error)?
    package var status: QueryStatus = .pending
    package var fetchStatus: FetchStatus = .idle
    /// Failures of the current (or last) fetch, retries included; reset by a success.
    package var failureCount = 0
    /// Set by `invalidateQueries` and by a failed fetch: stale whatever `staleTime` says, until the next success.
    package var isInvalidated = false
    package var observerCount = 0
    /// The `meta` of the fetch in flight (nil when idle): which page an infinite query is fetching.
    package var fetchMeta: (any Sendable)?
    /// The data was read back from the persistent cache and no fetch has replaced it yet.
    package var isRestored = false

    package init() {}

    /// Replaces the data with a value that is not equal to it.
    mutating func replaceData(with value: any Sendable) {
        data = value
        dataVersion &+= 1
    }

    /// Writes `value` as successful data at `updatedAt`: the current data stays when `comparison` found the
    /// value equal to it (structural sharing). Returns whether the data changed.
    mutating func write(
        _ value: any Sendable, updatedAt: SchedulerInstant, comparison: EntryEvent.Comparison?, isRestored: Bool
    ) -> Bool {
        let isSame = comparison?.holds(for: self) ?? false
        if !isSame { replaceData(with: value) }
        dataUpdatedAt = updatedAt
        status = .success
        error = nil
        isInvalidated = false
        self.isRestored = isRestored
        return !isSame
    }
}
