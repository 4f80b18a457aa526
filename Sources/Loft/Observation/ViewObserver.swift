import Observation

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

// MARK: - The read path and the registrar

/// What a UI reads of an observable Loft type: the latest snapshot box of the view it follows, for a lock and a
/// field read, and the observation registrar that tells SwiftUI (or `withObservationTracking`) of changes.
///
/// Non-generic on purpose: the key path handed to the registrar is made once for the type (a generic class
/// builds its key paths at run time, on every read), and a read looks up no generic metadata.
///
/// **Behavior**
/// - A read returns the box its source (a view of a cache entry) made last; the box is fetched from the source
///   only when the source's version moved since the last read, so most reads take one lock.
/// - The first read that tracking may watch calls `onFirstRead` once: until then nobody can be waiting for a
///   change, and the owner does not pay for notifications.
@usableFromInline
final class ObservedValue: Observable, Sendable {
    @usableFromInline
    struct State: Sendable {
        /// Where the box comes from: at first, a source of its own that holds the initial box.
        @usableFromInline var source: ViewCore
        @usableFromInline var box: ErasedObject
        /// The source's version of `box`; 0 when `box` did not come from the current source.
        @usableFromInline var version: UInt64
        @usableFromInline var isRead = false
        var onFirstRead: (@Sendable () -> Void)?

        init(source: ViewCore, box: ErasedObject, version: UInt64) {
            self.source = source
            self.box = box
            self.version = version
        }
    }

    /// Made once: a key path literal costs a runtime call on every use, and a static one a check that it is
    /// made.
    @usableFromInline let boxPath: any KeyPath<ObservedValue, ErasedObject> & Sendable = \ObservedValue.box

    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline let state: Locked<State>

    init(_ box: ErasedObject) {
        let source = ViewCore(box)
        state = Locked(State(source: source, box: box, version: source.version))
    }

    /// The latest box; tells observation tracking that it was read.
    @usableFromInline
    var box: ErasedObject {
        registrar.access(self, keyPath: boxPath)
        return read(markingRead: true)
    }

    /// `body` applied to the latest box, inside the lock when the box is current (so the box is neither retained
    /// nor released); tells observation tracking that it was read. `body` must not call out.
    @inlinable
    func read<Result>(_ body: (ErasedObject) -> Result) -> Result {
        registrar.access(self, keyPath: boxPath)
        let fast = state.withLock { state -> Result? in
            guard state.isRead, state.version == state.source.version else { return nil }
            return body(state.box)
        }
        return fast ?? body(read(markingRead: true))
    }

    /// The latest box, without telling observation tracking (for the owner's own decisions).
    var currentBox: ErasedObject {
        read(markingRead: false)
    }

    /// Whether anything read the box through `box` yet.
    var isRead: Bool {
        state.withLock { $0.isRead }
    }

    /// Called once, on the first tracked read (at once if that read already happened).
    func onFirstRead(_ action: @escaping @Sendable () -> Void) {
        let isRead = state.withLock { state -> Bool in
            if !state.isRead { state.onFirstRead = action }
            return state.isRead
        }
        if isRead { action() }
    }

    /// Follows another source; the next read takes its latest box.
    func setSource(_ source: ViewCore) {
        state.withLock { state in
            state.source = source
            state.version = 0
        }
    }

    /// Tells observation tracking that the box changed.
    func notifyChange() {
        registrar.notifyChange(of: self, at: boxPath)
    }

    @usableFromInline
    func read(markingRead: Bool) -> ErasedObject {
        let fast = state.withLock { state -> ErasedObject? in
            guard state.isRead || !markingRead, state.version == state.source.version else { return nil }
            return state.box
        }
        return fast ?? slowRead(markingRead: markingRead)
    }

    /// The first tracked read, or a read after the source moved: refreshes the box from the source.
    private func slowRead(markingRead: Bool) -> ErasedObject {
        let (source, firstRead) = state.withLock { state -> (ViewCore, (@Sendable () -> Void)?) in
            guard markingRead, !state.isRead else { return (state.source, nil) }
            state.isRead = true
            defer { state.onFirstRead = nil }
            return (state.source, state.onFirstRead)
        }
        firstRead?()
        let (box, version) = source.read()
        return state.withLock { state in
            if state.source === source, version > state.version {
                state.box = box
                state.version = version
            }
            return state.box
        }
    }
}

// MARK: - Telling the registrar

extension ObservationRegistrar {
    /// Tells observation tracking that `keyPath` of `subject` changed. Loft's observable types change their
    /// state behind a lock, elsewhere, so they announce the change after the fact, in one call.
    func notifyChange<Subject: Observable, Member>(of subject: Subject, at keyPath: KeyPath<Subject, Member>) {
        willSet(subject, keyPath: keyPath)
        didSet(subject, keyPath: keyPath)
    }
}
