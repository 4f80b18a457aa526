/// A view whose snapshot its owner derives from state of its own, for the observable types that show more (or
/// other) than one cache entry: `PaginatedQuery` (its pages' queries), `Queries` (its members' combined
/// result), `MutationList` (the calls it lists). Its `observer` (what the owner's readers and subscribers hold)
/// follows it as a query's follows an `EntryView`, so reads, publishers and Observation behave the same on
/// every type.
///
/// **Behavior**
/// - `changed()` remakes the snapshot with the closure given to `derive(_:)` and publishes it when an observer
///   can tell it from the last one; a new value is published only when it is not equal to the last one.
/// - Remakes run one at a time, never under a lock: a change during a remake (from another thread, or from a
///   subscriber's callback) makes one more, so the last remake always follows the last change.
/// - Until `derive(_:)` is called, it shows the snapshot it was made with.
final class DerivedView<Value: Sendable>: Sendable {
    /// What the view publishes, and its observers' relays listen to.
    let channel: ViewChannel<Value>
    /// What the owner's `state`, `snapshot` and publishers read; it follows this view for good (the owner
    /// closes it when it goes).
    let observer: ViewObserver<Value>
    /// How snapshots are made, kept in a struct as `ClientContext` keeps its links: a lock whose state is a bare
    /// function type wraps the closure in one more reabstraction thunk at each `withLock`, so every remake
    /// cost more than the one before.
    private let source = Locked<SnapshotMaker?>(nil)
    private let memo: Locked<DerivedMemo>
    private let updates = CoalescedRun()

    /// How the owner makes its snapshots.
    private struct SnapshotMaker: Sendable {
        let make: @Sendable () -> QuerySnapshot<Value>
    }

    /// A view showing `initial` until `derive(_:)` is called.
    init(showing initial: QuerySnapshot<Value>, client: QueryClient) {
        let box = SnapshotBox(initial)
        memo = Locked(DerivedMemo(last: ErasedObject(box)))
        channel = ViewChannel(box, client: client)
        observer = ViewObserver(showing: box)
        observer.follow(channel)
    }

    /// Sets how the snapshot is made (once; the closure usually holds its owner weakly), and makes it now.
    func derive(_ make: @escaping @Sendable () -> QuerySnapshot<Value>) {
        source.withLock { $0 = SnapshotMaker(make: make) }
        changed()
    }

    /// What the snapshot is made from changed: remakes it, and publishes what changed.
    func changed() {
        updates.run { update() }
    }

    private func update() {
        guard let maker = source.withLock({ $0 }) else { return }
        let box = SnapshotBox(maker.make())
        let memo = memo.withLock { $0 }
        let last = memo.last.unwrap(as: SnapshotBox<Value>.self)
        let next = box.snapshot
        // A derived view keeps no signature: its states are compared whatever their cases.
        let stateChanged = ViewSends.stateChanged(caseChanged: false, mayDiffer: true) {
            last.state.isSame(as: box.state)
        }
        var sends = ViewSends(box: ErasedObject(box), stateChanged: stateChanged)
        var kept = memo
        // Derived data has no version to tell it moved: the values decide.
        _ = kept.shownValue.publish(next.data, mayDiffer: true, into: &sends)
        guard sends.stateChanged || sends.valueChanged || ViewChannel<Value>.differ(last.snapshot, next) else {
            return
        }
        kept.last = ErasedObject(box)
        self.memo.withLock { $0 = kept }
        channel.publish(sends)
    }
}

/// What a `DerivedView` remembers between changes; not generic, so that taking its lock looks up no metadata.
private struct DerivedMemo: Sendable {
    /// The last snapshot's box (a `SnapshotBox<Value>`).
    var last: ErasedObject
    /// The last new value published, and whether the view shows it.
    var shownValue = ShownValue()
}
