/// How every observable Loft type shows its state: it follows one view at a time (a cache entry's `EntryView`,
/// or a `DerivedView` its owner feeds) and keeps what its owner's readers and subscribers hold, so that they
/// move together when the owner follows another view (a query's new key, new options).
///
/// `Query`, `Query.Selection` (and `Consumer`) follow entries through a `QueryObservation`; `InfiniteQuery`
/// and `StreamedQuery` are queries; `PaginatedQuery`, `Queries` and `MutationList` follow a `DerivedView` of
/// their own; a `Mutation` publishes its latest call's state on a channel of its own. So `state`, `snapshot`
/// and the publishers work, and cost, the same on every type.
///
/// **Behavior**
/// - `value` is what the owner's `state` and `snapshot` read: a lock and a field read, tracked by Observation.
///   The registrar hears of the followed view's changes only once something read `value` through tracking.
/// - A publisher's subscriber gets the current state first, then every change of the views followed, in
///   order; when the observer follows another view, a subscriber does not hear the new view's first state if
///   it shows what the old one showed.
/// - `close()` ends every subscription: nothing is delivered after it returns.
@usableFromInline
final class ViewObserver<Value: Sendable>: Sendable {
    private struct State: Sendable {
        var channel: ViewChannel<Value>?
        var relays: [UInt64: ViewRelay<Value>] = [:]
        var nextRelayID: UInt64 = 0
        /// Tells the registrar of the followed view's changes, once something read the value.
        var tracking: ViewRelay<Value>?
    }

    /// What the owner's `state` and `snapshot` read: a `SnapshotBox<Value>`.
    @usableFromInline let value: ObservedValue
    private let state = Locked(State())

    /// An observer showing `initial` until it follows a view.
    init(showing initial: SnapshotBox<Value>) {
        value = ObservedValue(ErasedObject(initial))
        value.onFirstRead { [weak self] in self?.track() }
    }

    /// The current snapshot's box, without telling observation tracking.
    var box: SnapshotBox<Value> {
        value.currentBox.unwrap(as: SnapshotBox<Value>.self)
    }

    /// The current snapshot's box, telling observation tracking that it was read.
    var trackedBox: SnapshotBox<Value> {
        value.box.unwrap(as: SnapshotBox<Value>.self)
    }

    /// The current state, telling observation tracking that it was read (the box is not retained).
    var trackedState: QueryState<Value> {
        value.read { $0.unwrap(as: SnapshotBox<Value>.self).state }
    }

    /// The current snapshot, telling observation tracking that it was read.
    var trackedSnapshot: QuerySnapshot<Value> {
        value.read { $0.unwrap(as: SnapshotBox<Value>.self).snapshot }
    }

    /// Every change of the snapshot, in order; a new subscriber gets the current one first.
    var snapshots: AnyPublisher<QuerySnapshot<Value>, Never> {
        ViewPublisher { [self] downstream in add(.snapshots(downstream)) }.eraseToAnyPublisher()
    }

    /// Every change of `state`, starting with the current one.
    var statePublisher: AnyPublisher<QueryState<Value>, Never> {
        ViewPublisher { [self] downstream in add(.states(downstream)) }.eraseToAnyPublisher()
    }

    /// Every new value, starting with the current one if there is one.
    var valuePublisher: AnyPublisher<Value, Never> {
        ViewPublisher { [self] downstream in add(.values(downstream)) }.eraseToAnyPublisher()
    }

    /// Makes `channel` the one this observer shows: the value reads from it, the subscribers and the registrar
    /// move to it.
    func follow(_ channel: ViewChannel<Value>) {
        let shown = box
        value.setSource(channel.core)
        let relays = state.withLock { state in
            state.channel = channel
            return Array(state.relays.values)
        }
        for relay in relays {
            relay.disconnect()
            relay.connect(to: channel, shown: shown)
        }
        if value.isRead {
            track()
            value.notifyChange()
        }
    }

    /// The owner goes: every subscriber leaves its view, and the registrar hears of nothing more.
    func close() {
        let (relays, tracking) = state.withLock { state in
            defer {
                state.relays = [:]
                state.tracking = nil
                state.channel = nil
            }
            return (state.relays.values, state.tracking)
        }
        for relay in relays { relay.close() }
        tracking?.close()
    }

    /// Keeps `relay`, hands its downstream the token that removes it, and connects it to the current view;
    /// returns the token (a `sink`'s, which cancels when released).
    private func add(_ relay: ViewRelay<Value>) -> Subscription {
        let (id, channel) = state.withLock { state -> (UInt64, ViewChannel<Value>?) in
            state.nextRelayID += 1
            state.relays[state.nextRelayID] = relay
            return (state.nextRelayID, state.channel)
        }
        let open = relay.open
        let token = Subscription(cancelsOnRelease: open == nil) { [weak self] in
            self?.state.withLock { _ = $0.relays.removeValue(forKey: id) }
            relay.close()
        }
        open?(token)
        guard var channel else {
            relay.show(box)
            return token
        }
        // Connect to the view followed now, even if the observer moved to another one meanwhile.
        while true {
            relay.connect(to: channel, shown: nil)
            guard let current = state.withLock({ $0.channel }), current !== channel else { return token }
            channel = current
        }
    }

    /// Tells the registrar of every change of the current view.
    private func track() {
        guard let channel = state.withLock({ $0.channel }) else { return }
        let tracking = ViewRelay<Value>.changes(value)
        tracking.connect(to: channel, shown: nil)
        let previous = state.withLock { state -> ViewRelay<Value>? in
            // Closed meanwhile: the new relay goes instead.
            guard state.channel != nil else { return tracking }
            defer { state.tracking = tracking }
            return state.tracking
        }
        previous?.close()
    }
}
