import Synchronization

/// What a view publishes, whatever makes its snapshots (a cache entry's `EntryView`, or a `DerivedView` that an
/// owner feeds): the latest snapshot box for reads, and the one subject its observers' relays listen to.
///
/// **Behavior**
/// - `publish(_:)` stores the box (reads see it at once), then sends the publication on the client's delivery
///   scheduler, once, to every relay: each picks its part (the snapshot, a changed state, a new value, or only
///   that something changed, for an observation registrar).
/// - A new relay gets the latest publication first (`DirectSubject`), with the value now.
final class ViewChannel<Value: Sendable>: Sendable {
    let core: ViewCore
    /// Every publication, to every relay.
    let publications: DirectSubject<ViewRelay<Value>>
    /// Runs a delivery on the client's delivery scheduler; nil: at once, on the thread that published. A closure,
    /// not the scheduler: binding an optional existential copies it at every publication.
    private let deliverLater: (@Sendable (@escaping @Sendable () -> Void) -> Void)?

    init(_ box: SnapshotBox<Value>, client: QueryClient) {
        let erased = ErasedObject(box)
        core = ViewCore(erased)
        publications = DirectSubject(ViewSends(box: erased, stateChanged: true))
        let scheduler = client.deliveryScheduler
        if scheduler is ImmediateScheduler {
            deliverLater = nil
        } else {
            deliverLater = { action in _ = scheduler.schedule(action) }
        }
    }

    /// How many relays of subscribers listen, observation registrars' apart (for tests).
    var relayCount: Int {
        publications.receivers.filter(\.isSubscribers).count
    }

    /// Stores `sends.box` as the latest and sends the publication. Callers publish one at a time, in order.
    func publish(_ sends: ViewSends) {
        core.store(sends.box)
        if let deliverLater {
            deliverLater { [self, sends] in publications.send(sends) }
        } else {
            publications.send(sends)
        }
    }

    /// Whether an observer can tell `next` from `old`: their signatures (`ViewSignature`, the one statement of
    /// what an observer tells apart), their states' values, or their keys differ.
    static func differ(_ old: QuerySnapshot<Value>, _ next: QuerySnapshot<Value>) -> Bool {
        old.signature(dataVersion: 0) != next.signature(dataVersion: 0) || !old.state.isSame(as: next.state)
            || old.key != next.key
    }
}

// MARK: - The latest box, for reads

/// The untyped half of an `EntryView`: its latest snapshot box and the version of it, readable without generic
/// code, so that the read path of every observer is the same non-generic code.
@usableFromInline
final class ViewCore: Sendable {
    private struct Current: Sendable {
        var box: ErasedObject
        var version: UInt64
    }

    private let current: Locked<Current>
    /// The version of the latest box, readable with no lock: an observer whose cached box has this version
    /// needs no other read.
    @usableFromInline let latest = Atomic<UInt64>(1)

    init(_ box: ErasedObject) {
        current = Locked(Current(box: box, version: 1))
    }

    /// The version of the latest box.
    @inlinable
    var version: UInt64 {
        latest.load(ordering: .acquiring)
    }

    /// The latest box and its version.
    func read() -> (box: ErasedObject, version: UInt64) {
        current.withLock { ($0.box, $0.version) }
    }

    /// Makes `box` the latest.
    func store(_ box: ErasedObject) {
        current.withLock { current in
            current.box = box
            current.version += 1
            latest.store(current.version, ordering: .releasing)
        }
    }
}

// MARK: - What a publication sends

/// One publication of a `ViewChannel`, as every relay of the channel receives it: the snapshot's box, whether
/// its state changed, whether the value changed, and the value now. Not generic (the boxes are kept as objects
/// of the channel's types), so that making, passing and storing it looks no type up; three words, so that the
/// channel's subject keeps it as its current value without allocating.
struct ViewSends: Sendable {
    /// A `SnapshotBox<Value>` of the channel's `Value`.
    let box: ErasedObject
    /// The value now: a `ValueBox<Value>`, or nil when there is none (no data yet, or the data went).
    var value: ErasedObject?
    var stateChanged: Bool
    /// Whether `value` is new: another value, or the data went.
    var valueChanged: Bool

    init(
        box: ErasedObject, stateChanged: Bool, value: ErasedObject? = nil, valueChanged: Bool = false
    ) {
        self.box = box
        self.value = value
        self.stateChanged = stateChanged
        self.valueChanged = valueChanged
    }

    /// The state part of a publication, decided alike for every view: the state changed when its case did
    /// (`caseChanged`), or, within one case whose states may differ by their values (`mayDiffer`), when
    /// `isSame` finds the two states different.
    static func stateChanged(caseChanged: Bool, mayDiffer: Bool, isSame: () -> Bool) -> Bool {
        caseChanged || (mayDiffer && !isSame())
    }
}

/// The value a view published last, and whether it still shows it: what decides the value part of its next
/// publication, for every view (`ShownValue.publish(boxed:isNew:into:)`). Not generic, as `ViewSends` is not.
struct ShownValue: Sendable {
    /// The last new value published (a `ValueBox<Value>` of the view's `Value`).
    var box: ErasedObject?
    /// Whether the view shows it (false before any value, and after the data went).
    var isShown = false

    /// Sets the value part of `sends` for the data `next`: a new value box when there was none shown, or when
    /// the data may differ (`mayDiffer`) and is not equal to the last value; the box shown when it is the same;
    /// a change with no value when the data went. Returns whether what is shown changed.
    mutating func publish<Value: Sendable>(_ next: Value?, mayDiffer: Bool, into sends: inout ViewSends) -> Bool {
        guard let value = next else { return publish(boxed: nil, isNew: false, into: &sends) }
        let last = box.map { $0.unwrap(as: ValueBox<Value>.self).value }
        guard !isShown || (mayDiffer && !areEqual(last, value)) else {
            return publish(boxed: box, isNew: false, into: &sends)
        }
        return publish(boxed: ErasedObject(ValueBox(value)), isNew: true, into: &sends)
    }

    /// Sets the value part of `sends` for a value already boxed (`next`, a `ValueBox<Value>`; nil: no value):
    /// a change when none was shown or the value is new (`isNew`), or when the value went; the value without a
    /// change otherwise. Returns whether what is shown changed.
    mutating func publish(boxed next: ErasedObject?, isNew: Bool, into sends: inout ViewSends) -> Bool {
        guard let next else {
            guard isShown else { return false }
            sends.valueChanged = true
            isShown = false
            return true
        }
        sends.value = next
        guard !isShown || isNew else { return false }
        sends.valueChanged = true
        box = next
        isShown = true
        return true
    }
}

// MARK: - What an observer can tell apart

/// What an observer can tell apart in a view's snapshot, in fields that need no generic code to compare: most
/// changes (a fetch starting or ending, data turning stale) are found different or equal here alone, and the
/// typed values are compared only when the data itself moved.
@usableFromInline
struct ViewSignature: Equatable, Sendable {
    /// The entry's data version; 0 for placeholder data.
    @usableFromInline var dataVersion: UInt64
    @usableFromInline var hasData: Bool
    @usableFromInline var isPlaceholder: Bool
    @usableFromInline var status: QueryStatus
    @usableFromInline var fetchStatus: FetchStatus
    @usableFromInline var failureCount: Int
    @usableFromInline var dataUpdatedAt: SchedulerInstant?
    @usableFromInline var isStale: Bool
    @usableFromInline var hasError: Bool
    @usableFromInline var isRestored: Bool

    /// The signature of an empty snapshot: pending, idle, stale, nothing.
    @inlinable
    init(
        dataVersion: UInt64 = 0, hasData: Bool = false, isPlaceholder: Bool = false, status: QueryStatus = .pending,
        fetchStatus: FetchStatus = .idle, failureCount: Int = 0, dataUpdatedAt: SchedulerInstant? = nil,
        isStale: Bool = true, hasError: Bool = false, isRestored: Bool = false
    ) {
        self.dataVersion = dataVersion
        self.hasData = hasData
        self.isPlaceholder = isPlaceholder
        self.status = status
        self.fetchStatus = fetchStatus
        self.failureCount = failureCount
        self.dataUpdatedAt = dataUpdatedAt
        self.isStale = isStale
        self.hasError = hasError
        self.isRestored = isRestored
    }

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
    @inlinable
    func signature(dataVersion: UInt64) -> ViewSignature {
        ViewSignature(
            dataVersion: isPlaceholderData ? 0 : dataVersion, hasData: data != nil, isPlaceholder: isPlaceholderData,
            status: status, fetchStatus: fetchStatus, failureCount: failureCount, dataUpdatedAt: dataUpdatedAt,
            isStale: isStale, hasError: error != nil, isRestored: isRestored)
    }
}
