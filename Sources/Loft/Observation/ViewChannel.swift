/// What a view publishes, whatever makes its snapshots (a cache entry's `EntryView`, or a `DerivedView` that an
/// owner feeds): the latest snapshot box for reads, and the channels its observers' relays listen to.
///
/// **Behavior**
/// - `publish(_:)` stores the box (reads see it at once), then sends it on the client's delivery scheduler:
///   `snapshots` every published box, `states` those whose `state` changed, `values` every new value (nil when
///   the data went), and `changes` once per publication, for observation registrars.
/// - A new subscriber of a channel gets its latest value first (`DirectSubject`).
final class ViewChannel<Value: Sendable>: Sendable {
    let core: ViewCore
    /// Every changed snapshot.
    let snapshots: DirectSubject<SnapshotRelay<Value>>
    /// Every snapshot whose `state` changed.
    let states: DirectSubject<StateRelay<Value>>
    /// Every new value; nil when the data went.
    let values = DirectSubject<ValueRelay<Value>>(nil)
    /// Tells the observation registrars of the observers that were read.
    let changes = PassthroughSubject<Void, Never>()
    /// Where deliveries run; nil: at once, on the thread that published.
    private let delivery: (any Scheduler)?

    init(_ box: SnapshotBox<Value>, client: QueryClient) {
        core = ViewCore(box)
        snapshots = DirectSubject(box)
        states = DirectSubject(box)
        delivery = client.deliveryScheduler is ImmediateScheduler ? nil : client.deliveryScheduler
    }

    /// How many relays listen (for tests).
    var relayCount: Int {
        snapshots.subscriberCount + states.subscriberCount + values.subscriberCount
    }

    /// Stores `sends.box` as the latest and sends what changed. Callers publish one at a time, in order.
    func publish(_ sends: ViewSends) {
        core.store(sends.box)
        if let delivery {
            delivery.schedule { [self, sends] in deliver(sends) }
        } else {
            deliver(sends)
        }
    }

    private func deliver(_ sends: ViewSends) {
        let box = unsafeDowncast(sends.box, to: SnapshotBox<Value>.self)
        snapshots.send(box)
        if sends.stateChanged { states.send(box) }
        switch sends.value {
        case .some(.some(let value)): values.send(unsafeDowncast(value, to: ValueBox<Value>.self))
        case .some(.none): values.send(nil)
        case .none: break
        }
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
}
