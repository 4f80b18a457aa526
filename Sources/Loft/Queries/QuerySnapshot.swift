/// The full picture of a query at one moment: data, error, both statuses, times, staleness.
///
/// `status` (what data there is) and `fetchStatus` (what the network is doing) are orthogonal: a disabled
/// query with no data is `.pending` and `.idle`, a background refetch is `.success` and `.fetching`.
public struct QuerySnapshot<Value: Sendable>: Sendable {
    /// The key this snapshot describes.
    public let key: QueryKey
    /// The data to show: the cached value (after `select`), or placeholder data.
    public let data: Value?
    /// The error of the last fetch, if it failed (the data may still hold the last good value).
    public let error: (any Error)?
    /// What data there is: pending, success or error.
    public let status: QueryStatus
    /// What the network is doing: idle, fetching or paused.
    public let fetchStatus: FetchStatus
    /// When the data was last fetched or set; nil for none (or placeholder data).
    public let dataUpdatedAt: SchedulerInstant?
    /// Whether the data is older than `staleTime` (or was invalidated); computed when the snapshot was taken.
    public let isStale: Bool
    /// Whether `data` is placeholder data, never written to the cache (then `status` is `.success`).
    public let isPlaceholderData: Bool
    /// Failures of the current or last fetch, retries included; 0 after a success.
    public let failureCount: Int
    /// Whether `data` was read back from the persistent cache (at start-up, or as the fallback of a failed
    /// fetch) and no fetch has replaced it yet: what a screen shows as "saved copy".
    public let isRestored: Bool

    /// Whether a fetch is running.
    public var isFetching: Bool { fetchStatus == .fetching }

    /// What to show, derived from the snapshot (see `QueryState`).
    @inlinable
    public var state: QueryState<Value> {
        if let data { return .succeed(data) }
        if status == .error, let error { return .failed(error) }
        if fetchStatus == .fetching { return .loading }
        return .idle
    }

    /// Makes a snapshot; usually read from a query, a consumer or `QueryClient.snapshot(for:as:)`.
    @inline(__always)
    public init(
        key: QueryKey,
        data: Value?,
        error: (any Error)?,
        status: QueryStatus,
        fetchStatus: FetchStatus,
        dataUpdatedAt: SchedulerInstant?,
        isStale: Bool,
        isPlaceholderData: Bool,
        failureCount: Int,
        isRestored: Bool = false
    ) {
        self.key = key
        self.data = data
        self.error = error
        self.status = status
        self.fetchStatus = fetchStatus
        self.dataUpdatedAt = dataUpdatedAt
        self.isStale = isStale
        self.isPlaceholderData = isPlaceholderData
        self.failureCount = failureCount
        self.isRestored = isRestored
    }

    /// The typed view of an entry snapshot.
    ///
    /// - Throws: `QueryError.typeMismatch` when the entry's data is not a `Value`.
    package init(key: QueryKey, entry: EntrySnapshot, staleTime: StaleTime, now: SchedulerInstant) throws {
        let typed: Value? = try entry.data.map { try cast($0, to: Value.self, key: key) }
        self.init(
            key: key, data: typed, error: entry.error, status: entry.status, fetchStatus: entry.fetchStatus,
            dataUpdatedAt: entry.dataUpdatedAt,
            isStale: Staleness.isStale(entry, judgedBy: staleTime, at: now),
            isPlaceholderData: false, failureCount: entry.failureCount, isRestored: entry.isRestored)
    }

    /// An empty snapshot of `key`: pending, idle, nothing.
    package static func empty(key: QueryKey) -> QuerySnapshot<Value> {
        QuerySnapshot(
            key: key, data: nil, error: nil, status: .pending, fetchStatus: .idle, dataUpdatedAt: nil, isStale: true,
            isPlaceholderData: false, failureCount: 0)
    }

    /// A snapshot of `key` that shows `state`: its value as data, its error with the status `.error`, and
    /// `.loading` as a fetch in flight. For what is not a cache entry (a mutation's latest call).
    @inlinable @inline(__always)
    package init(key: QueryKey, showing state: QueryState<Value>) {
        // One initialiser call per case, not a tuple of the fields: in unspecialised generic code a tuple of
        // generic fields is a type the runtime looks up on every call.
        switch state {
        case .idle:
            self.init(
                key: key, data: nil, error: nil, status: .pending, fetchStatus: .idle, dataUpdatedAt: nil,
                isStale: false, isPlaceholderData: false, failureCount: 0)
        case .loading:
            self.init(
                key: key, data: nil, error: nil, status: .pending, fetchStatus: .fetching, dataUpdatedAt: nil,
                isStale: false, isPlaceholderData: false, failureCount: 0)
        case .failed(let error):
            self.init(
                key: key, data: nil, error: error, status: .error, fetchStatus: .idle, dataUpdatedAt: nil,
                isStale: false, isPlaceholderData: false, failureCount: 1)
        case .succeed(let value):
            self.init(
                key: key, data: value, error: nil, status: .success, fetchStatus: .idle, dataUpdatedAt: nil,
                isStale: false, isPlaceholderData: false, failureCount: 0)
        }
    }

    /// This snapshot with other data (after `select`, or placeholder data).
    package func replacingData(_ data: Value?, isPlaceholder: Bool) -> QuerySnapshot<Value> {
        QuerySnapshot(
            key: key, data: data, error: error, status: status, fetchStatus: fetchStatus,
            dataUpdatedAt: isPlaceholder ? nil : dataUpdatedAt, isStale: isStale, isPlaceholderData: isPlaceholder,
            failureCount: failureCount, isRestored: isRestored && !isPlaceholder)
    }
}
