/// Everything a cache entry knows at one moment, with its data type-erased (typed views are `QuerySnapshot`).
package struct EntrySnapshot: Sendable {
    // The one-byte fields follow `data`, in the bytes its optional leaves free: the fields are laid out in this
    // order, and every cache entry holds a snapshot.
    package var data: (any Sendable)?
    package var status: QueryStatus = .pending
    package var fetchStatus: FetchStatus = .idle
    /// Set by `invalidateQueries` and by a failed fetch: stale whatever `staleTime` says, until the next success.
    package var isInvalidated = false
    /// The data was read back from the persistent cache and no fetch has replaced it yet.
    package var isRestored = false
    /// Bumped each time `data` is replaced by a value that is not equal to it: a typed view runs `select` again
    /// only when it changes.
    package var dataVersion: UInt64 = 0
    package var dataUpdatedAt: SchedulerInstant?
    package var error: (any Error)?
    /// Failures of the current (or last) fetch, retries included; reset by a success.
    package var failureCount = 0
    package var observerCount = 0
    /// The freshness the key is judged by (`ObserverTally.staleTime`): what a consumer without a `staleTime` of
    /// its own reads `isStale` with. Nil without enabled observers.
    package var staleTime: StaleTime?
    /// Kept out of line: an entry that is not fetching pays one pointer for it.
    private var fetchMetaBox: Boxed<any Sendable>?

    /// The `meta` of the fetch in flight (nil when idle): which page an infinite query is fetching.
    package var fetchMeta: (any Sendable)? {
        get { fetchMetaBox?.value }
        set { fetchMetaBox = newValue.map { Boxed($0) } }
    }

    package init() {}

    /// Takes the fetches' and writes' part of `other` (a cancel's restore, a reset), keeping what the observers
    /// made of this one (their count and the key's `staleTime`) and the data's version (`other` is older).
    mutating func restore(_ other: EntrySnapshot) {
        let (observerCount, staleTime, dataVersion) = (self.observerCount, self.staleTime, self.dataVersion)
        self = other
        self.observerCount = observerCount
        self.staleTime = staleTime
        self.dataVersion = dataVersion
    }

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
