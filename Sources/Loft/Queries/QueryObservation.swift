/// The typed view of a cache entry that one `Query` or `Consumer` holds: it observes the entry, applies
/// `select` and placeholder data, and publishes a snapshot when something changed.
///
/// It never copies the entry's state: every snapshot is derived from the entry's, so a query and a consumer
/// of one key always agree.
final class QueryObservation<Value: Sendable>: Sendable {
    private struct Attachment: Sendable {
        let entry: QueryCacheEntry
        let observerID: UInt64
        let subscription: Subscription
    }

    private struct State: Sendable {
        var attachment: Attachment?
        var snapshot: QuerySnapshot<Value>
        /// The data shown for the previous key, for `PlaceholderData.keepPrevious`.
        var previousData: Value?
        var onChange: (@Sendable (_ stateChanged: Bool) -> Void)?
    }

    let client: QueryClient
    let options: QueryOptions<Value>
    let staleTime: Duration
    let gcTime: Duration
    private let state: Locked<State>
    /// Every change of the snapshot, in order; a new subscriber gets the current one first.
    let snapshots: CurrentValueSubject<QuerySnapshot<Value>, Never>

    init(client: QueryClient, options: QueryOptions<Value>, key: QueryKey) {
        self.client = client
        self.options = options
        staleTime = options.staleTime ?? client.defaults.staleTime
        gcTime = options.gcTime ?? client.defaults.gcTime
        let empty = QuerySnapshot<Value>.empty(key: key)
        state = Locked(State(snapshot: empty))
        snapshots = CurrentValueSubject(empty)
    }

    /// Called after every change, with whether `state` (not only the snapshot) changed; the owner notifies
    /// its observation registrar.
    func onChange(_ notify: @escaping @Sendable (_ stateChanged: Bool) -> Void) {
        state.withLock { $0.onChange = notify }
    }

    /// The current snapshot, its staleness computed now.
    var snapshot: QuerySnapshot<Value> {
        let (snapshot, entry) = state.withLock { ($0.snapshot, $0.attachment?.entry) }
        guard let entry, !snapshot.isPlaceholderData else { return snapshot }
        return snapshot.withStaleness(entry.snapshot.isStale(at: client.scheduler.now, staleTime: staleTime))
    }

    var key: QueryKey {
        state.withLock { $0.snapshot.key }
    }

    var entry: QueryCacheEntry? {
        state.withLock { $0.attachment?.entry }
    }

    /// Observes the entry of `key` (leaving the previous one); returns it.
    @discardableResult
    func attach(to key: QueryKey, as observer: QueryCacheEntry.Observer) -> QueryCacheEntry {
        if let current = state.withLock({ $0.attachment?.entry }), current.key == key { return current }
        detach()
        let entry = client.entry(for: key)
        let observerID = entry.addObserver(observer, gcTime: gcTime)
        var changes = entry.changes.eraseToAnyPublisher()
        if !(client.deliveryScheduler is ImmediateScheduler) {
            changes = changes.receive(on: client.deliveryScheduler).eraseToAnyPublisher()
        }
        let subscription = Subscription(cancelsOnRelease: false) {}
        let attachment = Attachment(entry: entry, observerID: observerID, subscription: subscription)
        let isCurrent = state.withLock { state -> Bool in
            guard state.attachment == nil else { return false }
            state.attachment = attachment
            return true
        }
        guard isCurrent else {
            entry.removeObserver(observerID)
            return entry
        }
        let sink = changes.sink { [weak self] snapshot in self?.update(with: snapshot, of: entry) }
        let kept = state.withLock { state -> Bool in
            guard state.attachment?.entry === entry else { return false }
            state.attachment = Attachment(entry: entry, observerID: observerID, subscription: sink)
            return true
        }
        if !kept { sink.cancel() }
        return entry
    }

    /// Stops observing; the entry may then be garbage-collected.
    func detach() {
        let attachment = state.withLock { state -> Attachment? in
            defer { state.attachment = nil }
            if let data = state.snapshot.data, !state.snapshot.isPlaceholderData { state.previousData = data }
            return state.attachment
        }
        guard let attachment else { return }
        attachment.subscription.cancel()
        attachment.entry.removeObserver(attachment.observerID)
    }

    func setEnabled(_ isEnabled: Bool) {
        guard let attachment = state.withLock({ $0.attachment }) else { return }
        attachment.entry.setObserver(attachment.observerID, isEnabled: isEnabled)
    }

    private func update(with entrySnapshot: EntrySnapshot, of entry: QueryCacheEntry) {
        let previous = state.withLock { $0.previousData }
        let next = makeSnapshot(entrySnapshot, key: entry.key, previousData: previous)
        let change = state.withLock { state -> (stateChanged: Bool, notify: (@Sendable (Bool) -> Void)?)? in
            guard state.attachment?.entry === entry else { return nil }
            let old = state.snapshot
            let stateChanged = !old.state.isSame(as: next.state) || old.isPlaceholderData != next.isPlaceholderData
            let snapshotChanged =
                stateChanged || old.key != next.key || old.status != next.status
                || old.fetchStatus != next.fetchStatus || old.failureCount != next.failureCount
                || old.dataUpdatedAt != next.dataUpdatedAt || old.isStale != next.isStale
                || (old.error == nil) != (next.error == nil)
            guard snapshotChanged else { return nil }
            state.snapshot = next
            return (stateChanged, state.onChange)
        }
        guard let change else { return }
        snapshots.send(next)
        change.notify?(change.stateChanged)
    }

    private func makeSnapshot(_ entry: EntrySnapshot, key: QueryKey, previousData: Value?) -> QuerySnapshot<Value> {
        let now = client.scheduler.now
        var snapshot: QuerySnapshot<Value>
        do {
            snapshot = try QuerySnapshot(key: key, entry: entry, staleTime: staleTime, now: now)
        } catch {
            // The key holds another type: show the typed error instead of crashing.
            return QuerySnapshot(
                key: key, data: nil, error: error, status: .error, fetchStatus: entry.fetchStatus,
                dataUpdatedAt: entry.dataUpdatedAt, isStale: true, isPlaceholderData: false,
                failureCount: entry.failureCount)
        }
        if let data = snapshot.data, let select = options.select {
            snapshot = snapshot.replacingData(select(data), isPlaceholder: false)
        }
        if snapshot.data == nil, let placeholder = options.placeholderData {
            let value: Value? =
                switch placeholder {
                case .value(let value): value
                case .keepPrevious: previousData
                case .compute(let compute): compute(previousData)
                }
            if let value { snapshot = snapshot.replacingData(value, isPlaceholder: true) }
        }
        return snapshot
    }
}

extension QuerySnapshot {
    /// This snapshot with its staleness recomputed.
    func withStaleness(_ isStale: Bool) -> QuerySnapshot<Value> {
        QuerySnapshot(
            key: key, data: data, error: error, status: status, fetchStatus: fetchStatus,
            dataUpdatedAt: dataUpdatedAt, isStale: isStale, isPlaceholderData: isPlaceholderData,
            failureCount: failureCount)
    }
}
