/// The typed view of a cache entry: the entry's data cast to `Value` (through `select` and a projection, with
/// placeholder data), computed once per change of the entry and handed to every observer of the view by
/// reference.
///
/// Observers of one entry with the same type and options share one view (`QueryCacheEntry.acquireView`), so
/// one write reaching 10,000 consumers computes one snapshot and then calls 10,000 subscribers.
///
/// **Behavior**
/// - The snapshot is remade on every change the entry publishes (staleness included: the entry publishes when
///   data turns stale); a new box is stored only when something an observer can see changed.
/// - `select` and the projection run once per new data (per `dataVersion`), not again when a refetch returns
///   an equal value, and never under a lock.
/// - `snapshots` sends every changed snapshot, `states` every changed `state`, `values` every new value (nil
///   when the data goes: relays skip it); each is decided once per change, not per subscriber. Deliveries run
///   on the client's delivery scheduler, in the order of the entry's changes.
final class EntryView<Value: Sendable>: SharedEntryView {
    struct Configuration: Sendable {
        let staleTime: StaleTime
        let isEnabled: Bool
        /// The entry's data to `Value`: the cast, the query's `select`, the projection.
        let transform: @Sendable (any Sendable, QueryKey) throws -> Value
        /// Placeholder data, shown while the entry has neither data nor an error.
        let placeholder: (@Sendable () -> Value?)?
    }

    private struct Memo: Sendable {
        var last: QuerySnapshot<Value>
        var selected: (dataVersion: UInt64, value: Value)?
        /// The last value `values` sent, and whether the subject holds it (false after the data went).
        var lastValue: Value?
        var holdsValue = false
        var link: Subscription?
        var isClosed = false
    }

    let entry: QueryCacheEntry
    let core: ViewCore
    /// Every changed snapshot.
    let snapshots: CurrentValueSubject<SnapshotBox<Value>, Never>
    /// Every snapshot whose `state` changed.
    let states: CurrentValueSubject<SnapshotBox<Value>, Never>
    /// Every new value; nil when the data went.
    let values = CurrentValueSubject<ValueBox<Value>?, Never>(nil)
    /// Tells the observation registrars of the observers that were read.
    let changes = PassthroughSubject<Void, Never>()
    private let configuration: Configuration
    private let clock: any Scheduler
    /// Where deliveries run; nil: at once, on the thread that changed the entry.
    private let delivery: (any Scheduler)?
    private let memo: Locked<Memo>

    init(entry: QueryCacheEntry, configuration: Configuration, client: QueryClient) {
        self.entry = entry
        self.configuration = configuration
        clock = client.scheduler
        delivery = client.deliveryScheduler is ImmediateScheduler ? nil : client.deliveryScheduler
        let empty = QuerySnapshot<Value>.empty(key: entry.key)
        memo = Locked(Memo(last: empty))
        let box = SnapshotBox(empty)
        core = ViewCore(box)
        snapshots = CurrentValueSubject(box)
        states = CurrentValueSubject(box)
        // A strong capture: `close()` (when the last observer leaves) cancels the sink and breaks the cycle. The
        // subject replays the entry's current version at once, which makes the first snapshot.
        let link = entry.changes.sink { [self] _ in update() }
        let isClosed = memo.withLock { memo -> Bool in
            memo.link = link
            return memo.isClosed
        }
        if isClosed { link.cancel() }
    }

    func close() {
        let link = memo.withLock { memo -> Subscription? in
            memo.isClosed = true
            defer { memo.link = nil }
            return memo.link
        }
        link?.cancel()
    }

    /// The entry changed: remakes the snapshot, stores it, and sends what changed.
    private func update() {
        let raw = entry.snapshot
        let next = makeSnapshot(raw, now: clock.now)
        let box = SnapshotBox(next)
        let sends = memo.withLock { memo -> Sends? in
            guard !memo.isClosed, Self.differ(memo.last, next) else { return nil }
            let last = memo.last
            memo.last = next
            var sends = Sends(box: box, stateChanged: !last.state.isSame(as: next.state))
            if let value = next.data {
                if !memo.holdsValue || !areEqual(memo.lastValue, value) {
                    sends.value = .some(ValueBox(value))
                    memo.lastValue = value
                    memo.holdsValue = true
                }
            } else if memo.holdsValue {
                sends.value = .some(nil)
                memo.holdsValue = false
            }
            return sends
        }
        guard let sends else { return }
        core.store(box)
        if let delivery {
            delivery.schedule { [self] in deliver(sends) }
        } else {
            deliver(sends)
        }
    }

    /// What one change sends.
    private struct Sends: Sendable {
        let box: SnapshotBox<Value>
        let stateChanged: Bool
        var value: ValueBox<Value>?? = nil
    }

    private func deliver(_ sends: Sends) {
        snapshots.send(sends.box)
        if sends.stateChanged { states.send(sends.box) }
        if let value = sends.value { values.send(value) }
        changes.send(())
    }

    /// Whether an observer can tell `next` from `old`.
    static func differ(_ old: QuerySnapshot<Value>, _ next: QuerySnapshot<Value>) -> Bool {
        !old.state.isSame(as: next.state) || old.isPlaceholderData != next.isPlaceholderData || old.key != next.key
            || old.status != next.status || old.fetchStatus != next.fetchStatus
            || old.failureCount != next.failureCount || old.dataUpdatedAt != next.dataUpdatedAt
            || old.isStale != next.isStale || (old.error == nil) != (next.error == nil)
            || old.isRestored != next.isRestored
    }

    private func makeSnapshot(_ entry: EntrySnapshot, now: SchedulerInstant) -> QuerySnapshot<Value> {
        let key = self.entry.key
        let isStale = EntryStateMachine.isStale(
            entry, staleTime: configuration.staleTime, isEnabled: configuration.isEnabled, at: now)
        let data: Value?
        do {
            data = try selectedData(entry)
        } catch {
            // The key holds another type: show the typed error instead of crashing.
            return QuerySnapshot(
                key: key, data: nil, error: error, status: .error, fetchStatus: entry.fetchStatus,
                dataUpdatedAt: entry.dataUpdatedAt, isStale: true, isPlaceholderData: false,
                failureCount: entry.failureCount)
        }
        let snapshot = QuerySnapshot(
            key: key, data: data, error: entry.error, status: entry.status, fetchStatus: entry.fetchStatus,
            dataUpdatedAt: entry.dataUpdatedAt, isStale: isStale, isPlaceholderData: false,
            failureCount: entry.failureCount, isRestored: entry.isRestored)
        // Placeholder data shows only while there is neither data nor an error, through `select`.
        guard entry.status == .pending, data == nil, let placeholder = configuration.placeholder?() else {
            return snapshot
        }
        return QuerySnapshot(
            key: key, data: placeholder, error: nil, status: .success, fetchStatus: entry.fetchStatus,
            dataUpdatedAt: nil, isStale: isStale, isPlaceholderData: true, failureCount: entry.failureCount)
    }

    /// The entry's data through the transform, computed once per data version.
    private func selectedData(_ entry: EntrySnapshot) throws -> Value? {
        guard let raw = entry.data else { return nil }
        if let selected = memo.withLock({ $0.selected }), selected.dataVersion == entry.dataVersion {
            return selected.value
        }
        let value = try configuration.transform(raw, self.entry.key)
        memo.withLock { $0.selected = (entry.dataVersion, value) }
        return value
    }
}
