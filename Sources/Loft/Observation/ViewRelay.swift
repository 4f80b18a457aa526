import Synchronization

/// One listener of an observer's view, as the observer keeps it (`ViewObserver`): a subscriber of one of its
/// publishers, or the observer's observation registrar. It is connected to the channel of the view the
/// observer follows and moved to the next view when the observer follows another. Every relay of a channel
/// hears every publication and picks its part, so a publication is one send whatever its relays want; the
/// channel calls it as its own class (`DirectReceiver`), so a delivery is one method call.
final class ViewRelay<Value: Sendable>: DirectReceiver {
    /// What a relay delivers.
    enum Part: Sendable {
        /// Every snapshot an observer can tell from the last one.
        case snapshots
        /// Every changed state.
        case states
        /// Every new value (the data going is not one).
        case values
        /// Tells the registrar that the view changed: no replay, nothing else.
        case changes
    }

    let part: Part
    /// Hands a subscriber its token; nil for a `sink` (whose token is returned to the caller) and for a
    /// registrar.
    let open: (@Sendable (Subscription) -> Void)?
    // Where it delivers: the closure of its part (the others do nothing). Kept as plain fields, not as an
    // enum's payloads, so that a delivery calls one without copying it.
    private let receiveSnapshot: @Sendable (QuerySnapshot<Value>) -> Void
    private let receiveState: @Sendable (QueryState<Value>) -> Void
    private let receiveValue: @Sendable (Value) -> Void
    private let registrar: ObservedValue?
    private let link = RelayLink()

    private init(
        _ part: Part, open: (@Sendable (Subscription) -> Void)?,
        snapshot: @escaping @Sendable (QuerySnapshot<Value>) -> Void = { _ in },
        state: @escaping @Sendable (QueryState<Value>) -> Void = { _ in },
        value: @escaping @Sendable (Value) -> Void = { _ in }, registrar: ObservedValue? = nil
    ) {
        self.part = part
        self.open = open
        receiveSnapshot = snapshot
        receiveState = state
        receiveValue = value
        self.registrar = registrar
    }

    /// A relay of every snapshot an observer can tell from the last one.
    static func snapshots(_ downstream: ViewDownstream<QuerySnapshot<Value>>) -> ViewRelay {
        ViewRelay(.snapshots, open: downstream.open, snapshot: downstream.receive)
    }

    /// A relay of every changed state.
    static func states(_ downstream: ViewDownstream<QueryState<Value>>) -> ViewRelay {
        ViewRelay(.states, open: downstream.open, state: downstream.receive)
    }

    /// A relay of every new value.
    static func values(_ downstream: ViewDownstream<Value>) -> ViewRelay {
        ViewRelay(.values, open: downstream.open, value: downstream.receive)
    }

    /// A relay that tells `registrar` of every change.
    static func changes(_ registrar: ObservedValue) -> ViewRelay {
        ViewRelay(.changes, open: nil, registrar: registrar)
    }

    /// Whether it relays to a subscriber (not to a registrar).
    var isSubscribers: Bool { part != .changes }

    /// Subscribes to `channel`; the channel's replay of its latest publication is dropped when it shows the
    /// same as `shown`, the snapshot the observer showed before (nil: always delivered).
    func connect(to channel: ViewChannel<Value>, shown: SnapshotBox<Value>?) {
        let replayed: ErasedObject?
        switch part {
        case .snapshots, .states, .changes: replayed = shown.map { ErasedObject($0) }
        case .values: replayed = shown.flatMap { $0.snapshot.data }.map { ErasedObject(ValueBox($0)) }
        }
        guard link.prepareConnection(replayOf: replayed) else { return }
        channel.publications.subscribe(self)
    }

    /// Leaves the channel it is connected to (before it connects to the next one).
    func disconnect() { link.detach() }

    /// Leaves the channel it is connected to, for good: it delivers nothing after this returns.
    func close() { link.close() }

    /// Delivers what `box` shows (before the observer follows any view).
    func show(_ box: SnapshotBox<Value>) {
        switch part {
        case .snapshots: receiveSnapshot(box.snapshot)
        case .states: receiveState(box.state)
        case .values: if let data = box.snapshot.data { receiveValue(data) }
        case .changes: break
        }
    }

    func start(_ token: Subscription, replay: (any Sendable)?, completion: (any Sendable)?, conduit: SubjectConduit) {
        link.attach(token)
        guard let sends = replay as? ViewSends, conduit.isActive else { return }
        relay(sends, isReplay: true)
    }

    func receive(_ sends: ViewSends) {
        relay(sends, isReplay: false)
    }

    /// Delivers this relay's part of a publication; a replay (the first publication after connecting) carries
    /// the state and the value whether or not they changed then. The common case, a relay neither moved nor
    /// closed, delivers at once; the first publication after a move is checked apart (`deliverChecked`).
    @inline(__always)
    private func relay(_ sends: ViewSends, isReplay: Bool) {
        switch part {
        case .snapshots:
            guard link.isPlain else { return deliverChecked(sends.box) }
            receiveSnapshot(sends.box.unwrap(as: SnapshotBox<Value>.self).snapshot)
        case .states:
            guard isReplay || sends.stateChanged else { return }
            guard link.isPlain else { return deliverChecked(sends.box) }
            receiveState(sends.box.unwrap(as: SnapshotBox<Value>.self).state)
        case .values:
            // Read without binding it (a bound optional is retained for the delivery); checked just before.
            guard isReplay || sends.valueChanged, sends.value != nil else { return }
            guard link.isPlain else { return deliverChecked(sends.value!) }
            receiveValue(sends.value!.unwrap(as: ValueBox<Value>.self).value)
        case .changes:
            guard !isReplay, !link.isClosed else { return }
            registrar?.notifyChange()
        }
    }

    /// Delivers `input` (a `SnapshotBox`, or a `ValueBox` for `.values`) unless the relay is closed, or it is
    /// the first after a move and shows what the observer showed before it.
    @inline(never)
    private func deliverChecked(_ input: ErasedObject) {
        switch part {
        case .snapshots:
            let box = input.unwrap(as: SnapshotBox<Value>.self)
            if admits(box, isSame: { !ViewChannel<Value>.differ($0.snapshot, $1.snapshot) }) {
                receiveSnapshot(box.snapshot)
            }
        case .states:
            let box = input.unwrap(as: SnapshotBox<Value>.self)
            if admits(box, isSame: { $0.state.isSame(as: $1.state) }) { receiveState(box.state) }
        case .values:
            let box = input.unwrap(as: ValueBox<Value>.self)
            if admits(box, isSame: { areEqual($0.value, $1.value) }) { receiveValue(box.value) }
        case .changes:
            break
        }
    }

    /// Whether `box` must be delivered (`RelayLink.admits`), with what was shown, a box of the same type, and
    /// `box` compared by `isSame`.
    @inline(__always)
    private func admits<Box: AnyObject & Sendable>(_ box: Box, isSame: (Box, Box) -> Bool) -> Bool {
        link.admits(ErasedObject(box), isSameAsShown: { isSame($0.unwrap(as: Box.self), box) })
    }
}

/// The part of a relay that is the same for every part: the upstream token, whether the relay is closed, and
/// the check of the first value after a move. Stored inline in the relay, so a delivery reads one flag word
/// without another object; not generic (what was shown is kept as an object), so it looks no type up.
struct RelayLink: ~Copyable, Sendable {
    private static var checksNextBit: UInt8 { 1 }
    private static var closedBit: UInt8 { 2 }

    private let upstream = Locked<Subscription?>(nil)
    /// What the observer showed before it moved (a box of the relay's part): the replay of the new channel is
    /// compared with it.
    private let shown = Locked<ErasedObject?>(nil)
    private let flags = Atomic<UInt8>(0)

    /// Keeps the token of the channel now connected; cancels it at once when the relay is closed.
    func attach(_ subscription: Subscription) {
        let old = upstream.withLock { upstream -> Subscription? in
            defer { upstream = subscription }
            return upstream
        }
        old?.cancel()
        if isClosed { detach() }
    }

    /// Prepares a connection to a new channel, whose replay is compared with `shown`; false when the relay is
    /// closed and must not connect.
    func prepareConnection(replayOf shown: ErasedObject?) -> Bool {
        guard !isClosed else { return false }
        guard let shown else { return true }
        self.shown.withLock { $0 = shown }
        flags.bitwiseOr(Self.checksNextBit, ordering: .releasing)
        return true
    }

    /// Whether the relay delivers everything: neither closed nor checking the first value after a move.
    @inline(__always)
    var isPlain: Bool {
        flags.load(ordering: .acquiring) == 0
    }

    /// Whether `input` must be delivered: true but for the replay of what was already shown (`isSameAsShown`
    /// tells, given what was shown), and nothing once the relay is closed.
    func admits(_ input: ErasedObject, isSameAsShown: (ErasedObject) -> Bool) -> Bool {
        let current = flags.load(ordering: .acquiring)
        guard current != 0 else { return true }
        guard current & Self.closedBit == 0 else { return false }
        flags.bitwiseAnd(~Self.checksNextBit, ordering: .releasing)
        let shown = shown.withLock { shown -> ErasedObject? in
            defer { shown = nil }
            return shown
        }
        return shown.map { !isSameAsShown($0) } ?? true
    }

    /// Whether the relay was closed.
    var isClosed: Bool {
        flags.load(ordering: .acquiring) & Self.closedBit != 0
    }

    /// Closes the relay: it admits nothing more, and leaves its channel.
    func close() {
        flags.bitwiseOr(Self.closedBit, ordering: .releasing)
        detach()
    }

    /// Leaves the channel connected now.
    func detach() {
        upstream.withLock { upstream -> Subscription? in
            defer { upstream = nil }
            return upstream
        }?.cancel()
    }
}

// MARK: - The publishers a relay serves

/// A publisher of an observer's view: each subscriber becomes a relay that the observer keeps and moves from
/// view to view (see `QueryObservation`). `sink` makes a relay that calls the closure itself, with no
/// subscriber object in between.
struct ViewPublisher<Output: Sendable>: Publisher {
    typealias Failure = Never

    /// Makes the relay of a downstream, keeps it and returns the token that removes it.
    let subscribe: @Sendable (ViewDownstream<Output>) -> Subscription

    init(_ subscribe: @escaping @Sendable (ViewDownstream<Output>) -> Subscription) {
        self.subscribe = subscribe
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        _ = subscribe(
            ViewDownstream(open: { subscriber.receive(subscription: $0) }, receive: { subscriber.receive($0) }))
    }

    func sink(
        receiveCompletion: @escaping @Sendable (Completion<Never>) -> Void,
        receiveValue: @escaping @Sendable (Output) -> Void
    ) -> Subscription {
        subscribe(ViewDownstream(open: nil, receive: receiveValue))
    }
}

/// Where a relay delivers: a subscriber's two calls as closures, or the closure of a `sink`.
struct ViewDownstream<Input: Sendable>: Sendable {
    /// Hands the subscriber its token; nil for a `sink`, whose token is returned to the caller (and cancels
    /// when released).
    let open: (@Sendable (Subscription) -> Void)?
    let receive: @Sendable (Input) -> Void
}
