import Synchronization

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
/// - What its `channel` sends (every changed snapshot, every changed `state`, every new value) is decided once
///   per change, not per subscriber. Deliveries run on the client's delivery scheduler, in the order of the
///   entry's changes.
final class EntryView<Value: Sendable>: SharedEntryView, EntryListener {
    struct Configuration: Sendable {
        let staleTime: StaleTime
        /// Judges freshness by the key's `staleTime` (`EntrySnapshot.staleTime`), `staleTime` only without one.
        let inheritsStaleTime: Bool
        let isEnabled: Bool
        /// The entry's data to `Value`: the cast, the query's `select`, the projection.
        let transform: @Sendable (any Sendable, QueryKey) throws -> Value
        /// Placeholder data, shown while the entry has neither data nor an error.
        let placeholder: (@Sendable () -> Value?)?
    }

    let entry: QueryCacheEntry
    /// What the view publishes, and its observers' relays listen to.
    let channel: ViewChannel<Value>
    private let configuration: Configuration
    private let clock: any Scheduler
    private let memo: Locked<ViewMemo>
    /// Serialises the updates: one at a time, the last one after the last change.
    private let updates = CoalescedRun()

    init(entry: QueryCacheEntry, configuration: Configuration, client: QueryClient) {
        self.entry = entry
        self.configuration = configuration
        clock = client.scheduler
        let box = SnapshotBox(QuerySnapshot<Value>.empty(key: entry.key))
        memo = Locked(ViewMemo(last: ErasedObject(box)))
        channel = ViewChannel(box, client: client)
        // The entry holds the view strongly: `close()` (when the last observer leaves) removes it and breaks
        // the cycle. The first update makes the first snapshot.
        let link = entry.addListener(self)
        let isClosed = memo.withLock { memo -> Bool in
            memo.link = link
            return memo.isClosed
        }
        if isClosed { link.cancel() }
        entryChanged(to: 0)
    }

    func entryChanged(to version: UInt64) {
        updates.run { update() }
    }

    var relayCount: Int {
        channel.relayCount
    }

    func close() {
        let link = memo.withLock { memo -> Subscription? in
            memo.isClosed = true
            defer { memo.link = nil }
            return memo.link
        }
        link?.cancel()
    }

    /// The entry changed: remakes the snapshot from the entry's latest, stores it, and sends what changed. Runs
    /// one at a time (`updates`).
    private func update() {
        let raw = entry.snapshot
        let next = makeSnapshot(raw, now: clock.now)
        let signature = next.signature(dataVersion: raw.dataVersion)
        let box = SnapshotBox(next)
        let erased = ErasedObject(box)
        let previous = memo.withLock { memo -> ViewPrevious? in
            guard !memo.isClosed, signature != memo.signature else { return nil }
            defer {
                memo.last = erased
                memo.signature = signature
            }
            return ViewPrevious(
                last: memo.last, signature: memo.signature, shownValue: memo.shownValue)
        }
        guard let previous else { return }
        let last = previous.last.unwrap(as: SnapshotBox<Value>.self)
        let dataMoved = signature.dataMoved(from: previous.signature)
        // Two states of one case differ by their values: the data when it moved, the error when it failed.
        let stateChanged = ViewSends.stateChanged(
            caseChanged: signature.stateCase != previous.signature.stateCase,
            mayDiffer: dataMoved || signature.stateCase == .failed
        ) { last.state.isSame(as: box.state) }
        var sends = ViewSends(box: erased, stateChanged: stateChanged)
        var shownValue = previous.shownValue
        if shownValue.publish(next.data, mayDiffer: dataMoved, into: &sends) {
            memo.withLock { $0.shownValue = shownValue }
        }
        channel.publish(sends)
    }

    private func makeSnapshot(_ entry: EntrySnapshot, now: SchedulerInstant) -> QuerySnapshot<Value> {
        let key = self.entry.key
        let staleTime =
            configuration.inheritsStaleTime ? entry.staleTime ?? configuration.staleTime : configuration.staleTime
        let isStale = Staleness.isStale(entry, judgedBy: staleTime, isEnabled: configuration.isEnabled, at: now)
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
        guard entry.status == .pending, data == nil, let placeholder = placeholderData() else {
            return snapshot
        }
        return QuerySnapshot(
            key: key, data: placeholder, error: nil, status: .success, fetchStatus: entry.fetchStatus,
            dataUpdatedAt: nil, isStale: isStale, isPlaceholderData: true, failureCount: entry.failureCount)
    }

    /// The placeholder data, computed the first time it is needed.
    private func placeholderData() -> Value? {
        guard let make = configuration.placeholder else { return nil }
        let (made, placeholder) = memo.withLock { ($0.madePlaceholder, $0.placeholder) }
        if made { return placeholder.map { $0.unwrap(as: ValueBox<Value>.self).value } }
        let value = make()
        let box = value.map { ErasedObject(ValueBox($0)) }
        memo.withLock { memo in
            memo.placeholder = box
            memo.madePlaceholder = true
        }
        return value
    }

    /// The entry's data through the transform, computed once per data version.
    private func selectedData(_ entry: EntrySnapshot) throws -> Value? {
        guard let raw = entry.data else { return nil }
        if let selected = memo.withLock({ $0.selected }), selected.dataVersion == entry.dataVersion {
            return selected.box.unwrap(as: ValueBox<Value>.self).value
        }
        let value = try configuration.transform(raw, self.entry.key)
        let box = ErasedObject(ValueBox(value))
        memo.withLock { $0.selected = (entry.dataVersion, box) }
        return value
    }
}

/// What an `EntryView` remembers between changes. Not generic (nor nested in the generic view): the boxes are
/// held as objects, so that taking the lock looks up no generic metadata.
private struct ViewMemo: Sendable {
    /// The last snapshot's box (a `SnapshotBox<Value>`) and signature.
    var last: ErasedObject
    var signature = ViewSignature()
    /// The data version last selected, and the value selected from it (a `ValueBox<Value>`).
    var selected: (dataVersion: UInt64, box: ErasedObject)?
    /// The placeholder data (a `ValueBox<Value>`), computed once: what it is made from does not change for
    /// the view's life.
    var placeholder: ErasedObject?
    var madePlaceholder = false
    /// The last new value published, and whether the view shows it.
    var shownValue = ShownValue()
    /// The token of the view's place among the entry's listeners.
    var link: Subscription?
    var isClosed = false
}

/// What a change of an `EntryView` found before it: the memo's fields an update compares with, outside the lock.
private struct ViewPrevious: Sendable {
    let last: ErasedObject
    let signature: ViewSignature
    let shownValue: ShownValue
}

// MARK: - Sharing a view: its identity

/// What makes two observers of an entry see the same typed view: the type they read, and the options that
/// change what they see. Observers with a `select`, placeholder data or a projection have views of their own.
struct ViewIdentity: Hashable, Sendable {
    let valueType: ObjectIdentifier
    let staleTime: StaleTime
    let inheritsStaleTime: Bool
    let isEnabled: Bool
}

/// A view an entry keeps for the observers that share it, closed when the last one leaves.
protocol SharedEntryView: AnyObject, Sendable {
    /// Stops following the entry.
    func close()
    /// How many relays listen to the view's channels (for tests).
    var relayCount: Int { get }
}

// MARK: - Updates one at a time

/// Runs one job at a time; requests that come while it runs (from another thread, or from inside the job)
/// make it run once more when it ends, however many they are. For work that reads the latest state, such as
/// a view remaking its snapshot: the last run always sees the last change, and none runs twice at once.
///
/// One atomic word, no lock, no queue: an update that no one else wants costs two atomic operations.
struct CoalescedRun: ~Copyable, Sendable {
    private static var idle: UInt8 { 0 }
    private static var running: UInt8 { 1 }
    private static var runningAndRequested: UInt8 { 2 }

    private let state = Atomic<UInt8>(0)

    /// Runs `body` now, or makes the run in progress run again when it ends.
    func run(_ body: () -> Void) {
        var current = state.load(ordering: .relaxed)
        while true {
            if current == Self.runningAndRequested { return }
            let next = current == Self.idle ? Self.running : Self.runningAndRequested
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged {
                if current != Self.idle { return }
                break
            }
            current = original
        }
        repeat {
            body()
        } while !finish()
    }

    /// Ends a pass of the run: true when no request came meanwhile, and the run is over; otherwise takes the
    /// request and returns false (the caller runs its work again).
    private func finish() -> Bool {
        let (finished, _) = state.compareExchange(
            expected: Self.running, desired: Self.idle, ordering: .acquiringAndReleasing)
        if finished { return true }
        // Only the runner lowers the state, so it is `runningAndRequested` here.
        state.store(Self.running, ordering: .releasing)
        return false
    }
}
