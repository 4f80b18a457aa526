/// A view whose snapshot its owner derives from state of its own, for the observable types that show more (or
/// other) than one cache entry: `PaginatedQuery` (its pages' queries), `Queries` (its members' combined
/// result), `MutationList` (the calls it lists), `Mutation` (its latest call). Its `observer` (what the owner's readers and subscribers hold)
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
    private let memo: Locked<DerivedMemo>
    private let updates = CoalescedRun()

    /// A view showing `initial` until `derive(_:)` is called.
    init(showing initial: QuerySnapshot<Value>, client: QueryClient) {
        let frame = ViewFrame(initial, dataVersion: nil)
        memo = Locked(DerivedMemo(last: frame))
        let box = frame.box.unwrap(as: SnapshotBox<Value>.self)
        channel = ViewChannel(box, client: client)
        observer = ViewObserver(showing: box)
        observer.follow(channel)
    }

    /// Sets how the snapshot is made (once; the closure usually holds its owner weakly), and makes it now. The
    /// values decide whether its data moved.
    func derive(_ make: @escaping @Sendable () -> QuerySnapshot<Value>) {
        derive(frames: { ViewFrame(make(), dataVersion: nil) })
    }

    /// Sets how the snapshot's frame is made (once), and makes it now: for an owner that makes its frames where
    /// `Value` is known (`ViewFrame.init(_:dataVersion:)`), and whose data has a version.
    func derive(frames make: @escaping @Sendable () -> ViewFrame) {
        memo.withLock { $0.make = make }
        changed()
    }

    /// What the snapshot is made from changed: remakes it, and publishes what changed.
    func changed() {
        updates.run { update() }
    }

    /// Publishes what an observer can tell apart from the last frame, decided as an entry's view decides it: by
    /// the signatures, and by the typed states and values only when the signatures cannot tell.
    private func update() {
        let memo = memo.withLock { $0 }
        guard let make = memo.make else { return }
        let next = make()
        let last = memo.last
        let dataMoved = next.valuesDecide || next.signature.dataMoved(from: last.signature)
        // Two states of one case differ by their values: the data when it moved, the error when it failed.
        let stateChanged = ViewSends.stateChanged(
            caseChanged: next.signature.stateCase != last.signature.stateCase,
            mayDiffer: dataMoved || next.signature.stateCase == .failed
        ) { Self.box(last).state.isSame(as: Self.box(next).state) }
        var sends = ViewSends(box: next.box, stateChanged: stateChanged)
        var shownValue = memo.shownValue
        let isNew = !shownValue.isShown || (dataMoved && !Self.sameValue(shownValue.box, next.value))
        let shown = isNew || next.value == nil ? next.value : shownValue.box
        _ = shownValue.publish(boxed: shown, isNew: isNew, into: &sends)
        // A frame with no version can change its key alone (a paginated query's request).
        guard
            sends.stateChanged || sends.valueChanged || next.signature != last.signature
                || (next.valuesDecide && Self.box(last).snapshot.key != Self.box(next).snapshot.key)
        else { return }
        self.memo.withLock {
            $0.last = next
            $0.shownValue = shownValue
        }
        channel.publish(sends)
    }

    private static func box(_ frame: ViewFrame) -> SnapshotBox<Value> {
        frame.box.unwrap(as: SnapshotBox<Value>.self)
    }

    /// Whether two value boxes (`ValueBox<Value>`) hold equal values.
    private static func sameValue(_ last: ErasedObject?, _ next: ErasedObject?) -> Bool {
        guard let last, let next else { return last == nil && next == nil }
        return areEqual(last.unwrap(as: ValueBox<Value>.self).value, next.unwrap(as: ValueBox<Value>.self).value)
    }
}

/// What a `DerivedView` remembers between changes; not generic, so that taking its lock looks up no metadata.
private struct DerivedMemo: Sendable {
    /// How the owner makes its frames (nil until `derive`).
    var make: (@Sendable () -> ViewFrame)?
    /// The last frame published.
    var last: ViewFrame
    /// The last new value published, and whether the view shows it.
    var shownValue = ShownValue()
}
