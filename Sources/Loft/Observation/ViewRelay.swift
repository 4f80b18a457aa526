import Synchronization

/// One subscriber of an observer's publisher, as the observer keeps it (`ViewObserver`): connected to the
/// channel of the view the observer follows, and moved to the next view when the observer follows another. The
/// channel calls it as its own class (`DirectReceiver`), so a delivery is one method call.
protocol ViewRelay<Value>: DirectReceiver {
    associatedtype Value: Sendable
    /// What its downstream receives.
    associatedtype Output: Sendable

    /// Where it delivers.
    var downstream: ViewDownstream<Output> { get }
    /// Keeps the token of the channel it is now connected to.
    func attach(_ channel: Subscription)
    /// Subscribes to its channel of `channel`; the channel's replay of its current value is dropped when it
    /// shows the same as `shown`, the snapshot the observer showed before (nil: always delivered).
    func connect(to channel: ViewChannel<Value>, shown: SnapshotBox<Value>?)
    /// Leaves the channel it is connected to (before it connects to the next one).
    func disconnect()
    /// Leaves the channel it is connected to, for good: it delivers nothing after this returns.
    func close()
    /// Delivers what `box` shows on this relay's channel (before the observer follows any view).
    func show(_ box: SnapshotBox<Value>)
}

extension ViewRelay {
    func start(_ token: Subscription, replay: (any Sendable)?, completion: (any Sendable)?, conduit: SubjectConduit) {
        attach(token)
        if let value = replay as? Input, conduit.isActive { receive(value) }
    }
}

/// The part of a relay that is the same for every channel: the upstream token, whether the relay is closed,
/// and the check of the first value after a move. Stored inline in the relay, so a delivery reads one flag
/// word without another object.
struct RelayLink<Input: AnyObject & Sendable>: ~Copyable, Sendable {
    private static var checksNextBit: UInt8 { 1 }
    private static var closedBit: UInt8 { 2 }

    private let upstream = Locked<Subscription?>(nil)
    /// What the observer showed before it moved: the replay of the new channel is compared with it.
    private let shown = Locked<Input?>(nil)
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
    func prepareConnection(replayOf shown: Input?) -> Bool {
        guard !isClosed else { return false }
        guard let shown else { return true }
        self.shown.withLock { $0 = shown }
        flags.bitwiseOr(Self.checksNextBit, ordering: .releasing)
        return true
    }

    /// Whether `input` must be delivered: true but for the replay of what was already shown, and nothing once
    /// the relay is closed.
    @inline(__always)
    func admits(_ input: Input, isSame: (Input, Input) -> Bool) -> Bool {
        let current = flags.load(ordering: .acquiring)
        guard current != 0 else { return true }
        guard current & Self.closedBit == 0 else { return false }
        flags.bitwiseAnd(~Self.checksNextBit, ordering: .releasing)
        let shown = shown.withLock { shown -> Input? in
            defer { shown = nil }
            return shown
        }
        return shown.map { !isSame($0, input) } ?? true
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

/// The relay of a snapshot publisher.
final class SnapshotRelay<Value: Sendable>: ViewRelay {
    let downstream: ViewDownstream<QuerySnapshot<Value>>
    private let link = RelayLink<SnapshotBox<Value>>()

    init(_ downstream: ViewDownstream<QuerySnapshot<Value>>) {
        self.downstream = downstream
    }

    func show(_ box: SnapshotBox<Value>) { downstream.receive(box.snapshot) }
    func disconnect() { link.detach() }
    func close() { link.close() }
    func attach(_ channel: Subscription) { link.attach(channel) }

    func connect(to channel: ViewChannel<Value>, shown: SnapshotBox<Value>?) {
        guard link.prepareConnection(replayOf: shown) else { return }
        channel.snapshots.subscribe(self)
    }

    func receive(_ box: SnapshotBox<Value>) {
        guard link.admits(box, isSame: { !ViewChannel<Value>.differ($0.snapshot, $1.snapshot) }) else { return }
        downstream.receive(box.snapshot)
    }
}

/// The relay of a state publisher.
final class StateRelay<Value: Sendable>: ViewRelay {
    let downstream: ViewDownstream<QueryState<Value>>
    private let link = RelayLink<SnapshotBox<Value>>()

    init(_ downstream: ViewDownstream<QueryState<Value>>) {
        self.downstream = downstream
    }

    func show(_ box: SnapshotBox<Value>) { downstream.receive(box.state) }
    func disconnect() { link.detach() }
    func close() { link.close() }
    func attach(_ channel: Subscription) { link.attach(channel) }

    func connect(to channel: ViewChannel<Value>, shown: SnapshotBox<Value>?) {
        guard link.prepareConnection(replayOf: shown) else { return }
        channel.states.subscribe(self)
    }

    func receive(_ box: SnapshotBox<Value>) {
        guard link.admits(box, isSame: { $0.state.isSame(as: $1.state) }) else { return }
        downstream.receive(box.state)
    }
}

/// The relay of a value publisher: the channel's nil (the data went) is not a value.
final class ValueRelay<Value: Sendable>: ViewRelay {
    let downstream: ViewDownstream<Value>
    private let link = RelayLink<ValueBox<Value>>()

    init(_ downstream: ViewDownstream<Value>) {
        self.downstream = downstream
    }

    func disconnect() { link.detach() }
    func close() { link.close() }
    func attach(_ channel: Subscription) { link.attach(channel) }

    func show(_ box: SnapshotBox<Value>) {
        if let data = box.snapshot.data { downstream.receive(data) }
    }

    func connect(to channel: ViewChannel<Value>, shown: SnapshotBox<Value>?) {
        guard link.prepareConnection(replayOf: shown.flatMap { $0.snapshot.data }.map(ValueBox.init)) else { return }
        channel.values.subscribe(self)
    }

    func receive(_ input: borrowing ValueBox<Value>?) {
        switch input {
        case .some(let box):
            guard link.admits(box, isSame: { areEqual($0.value, $1.value) }) else { return }
            downstream.receive(box.value)
        case .none:
            return
        }
    }
}
