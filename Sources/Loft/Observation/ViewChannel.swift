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

    /// Whether an observer can tell `next` from `old`.
    static func differ(_ old: QuerySnapshot<Value>, _ next: QuerySnapshot<Value>) -> Bool {
        !old.state.isSame(as: next.state) || old.isPlaceholderData != next.isPlaceholderData || old.key != next.key
            || old.status != next.status || old.fetchStatus != next.fetchStatus
            || old.failureCount != next.failureCount || old.dataUpdatedAt != next.dataUpdatedAt
            || old.isStale != next.isStale || (old.error == nil) != (next.error == nil)
            || old.isRestored != next.isRestored
    }
}
