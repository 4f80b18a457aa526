/// Everything a cache entry knows at one moment, with its data type-erased (typed views are `QuerySnapshot`).
package struct EntrySnapshot: Sendable {
    // In an order that leaves no padding inside (every cache entry holds a snapshot, row (i)): the 8-byte
    // fields, the 4-byte ones, then the one-byte fields, which end it: 80 bytes.
    package var data: (any Sendable)?
    package var error: (any Error)?
    /// Kept out of line: an entry that is not fetching pays one pointer for it.
    private var fetchMetaBox: Boxed<any Sendable>?
    /// `dataUpdatedAt` in nanoseconds since the epoch, `Int64.min` for none: an optional instant takes 9 bytes.
    private var dataUpdatedAtNanoseconds = Int64.min
    /// `staleTime`, packed to 8 bytes.
    private var packedStaleTime = PackedDuration(staleTime: nil)
    private var storedFailureCount: Int32 = 0
    private var storedObserverCount: Int32 = 0
    /// `dataVersion` in 4 bytes: it is only compared for equality, and wraps (a view 2^32 values behind is not
    /// a case), as the machine's change counter.
    private var dataNumber: UInt32 = 0
    package var status: QueryStatus = .pending
    package var fetchStatus: FetchStatus = .idle
    /// Set by `invalidateQueries` and by a failed fetch: stale whatever `staleTime` says, until the next success.
    package var isInvalidated = false
    /// The data was read back from the persistent cache and no fetch has replaced it yet.
    package var isRestored = false

    /// Bumped each time `data` is replaced by a value that is not equal to it: a typed view runs `select` again
    /// only when it changes.
    package var dataVersion: UInt64 {
        get { UInt64(dataNumber) }
        set { dataNumber = UInt32(truncatingIfNeeded: newValue) }
    }

    /// The freshness the key is judged by (`ObserverTally.staleTime`): what a consumer without a `staleTime` of
    /// its own reads `isStale` with. Nil without enabled observers. Kept to the nanosecond.
    package var staleTime: StaleTime? {
        get { packedStaleTime.staleTime }
        set { packedStaleTime = PackedDuration(staleTime: newValue) }
    }

    /// Takes `staleTime` as the key's (as precisely as it is kept); returns whether it changed.
    mutating func judge(by staleTime: StaleTime?) -> Bool {
        let packed = PackedDuration(staleTime: staleTime)
        guard packed != packedStaleTime else { return false }
        packedStaleTime = packed
        return true
    }

    /// When the data was last written (nil before any). An instant at `Int64.min` nanoseconds, which no clock
    /// gives, is kept one nanosecond later: that value marks "none".
    package var dataUpdatedAt: SchedulerInstant? {
        get {
            dataUpdatedAtNanoseconds == .min ? nil : SchedulerInstant(nanosecondsSinceEpoch: dataUpdatedAtNanoseconds)
        }
        set { dataUpdatedAtNanoseconds = newValue.map { max($0.nanosecondsSinceEpoch, .min + 1) } ?? .min }
    }

    /// Failures of the current (or last) fetch, retries included; reset by a success. Kept in 4 bytes (a count
    /// past `Int32.max` stays there).
    package var failureCount: Int {
        get { Int(storedFailureCount) }
        set { storedFailureCount = Int32(clamping: newValue) }
    }

    /// How many observers the entry has. Kept in 4 bytes, as `failureCount`.
    package var observerCount: Int {
        get { Int(storedObserverCount) }
        set { storedObserverCount = Int32(clamping: newValue) }
    }

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
