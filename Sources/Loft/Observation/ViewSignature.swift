/// What an observer can tell apart in a view's snapshot, in fields that need no generic code to compare: most
/// changes (a fetch starting or ending, data turning stale) are found different or equal here alone, and the
/// typed values are compared only when the data itself moved.
struct ViewSignature: Equatable, Sendable {
    /// The entry's data version; 0 for placeholder data.
    var dataVersion: UInt64 = 0
    var hasData = false
    var isPlaceholder = false
    var status = QueryStatus.pending
    var fetchStatus = FetchStatus.idle
    var failureCount = 0
    var dataUpdatedAt: SchedulerInstant?
    var isStale = true
    var hasError = false
    var isRestored = false

    /// Whether the data shown may differ (the typed values then decide).
    func dataMoved(from other: ViewSignature) -> Bool {
        dataVersion != other.dataVersion || hasData != other.hasData || isPlaceholder != other.isPlaceholder
    }

    /// Which case of `QueryState` the snapshot shows.
    var stateCase: StateCase {
        if hasData { return .succeed }
        if status == .error, hasError { return .failed }
        return fetchStatus == .fetching ? .loading : .idle
    }

    /// The cases of `QueryState`, without their values.
    enum StateCase: Sendable {
        case idle, loading, failed, succeed
    }
}

extension QuerySnapshot {
    /// This snapshot's signature; `dataVersion` is the entry's version of the data it shows.
    func signature(dataVersion: UInt64) -> ViewSignature {
        ViewSignature(
            dataVersion: isPlaceholderData ? 0 : dataVersion, hasData: data != nil, isPlaceholder: isPlaceholderData,
            status: status, fetchStatus: fetchStatus, failureCount: failureCount, dataUpdatedAt: dataUpdatedAt,
            isStale: isStale, hasError: error != nil, isRestored: isRestored)
    }
}
