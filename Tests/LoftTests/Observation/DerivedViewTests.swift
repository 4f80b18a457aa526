import Dispatch
import LoftTesting
import Testing

@testable import Loft

/// A derived view over a counter, and an observer following it, as `PaginatedQuery`, `Queries` and `Mutation`
/// use them.
private struct Counted {
    let count = Locked(0)
    let view: DerivedView<Int>
    let observer: ViewObserver<Int>

    init(client: QueryClient) {
        let idle = QuerySnapshot<Int>.empty(key: "counted")
        view = DerivedView(showing: idle, client: client)
        observer = ViewObserver(showing: SnapshotBox(idle))
        observer.follow(view.channel)
        view.derive { [count] in QuerySnapshot(key: "counted", showing: .succeed(count.withLock { $0 })) }
    }

    func bump() {
        count.withLock { $0 += 1 }
        view.changed()
    }
}

@Suite struct DerivedViewTests {
    @Test(
        "100,000 remakes of the same snapshot publish it once and leave the snapshot maker flat, then a release",
        .timeLimit(.minutes(1)))
    // A lock over a bare closure wrapped it in one more thunk per read: each remake cost more than the one
    // before, and the release recursed through the chain.
    func remakesStayFlat() {
        let client = TestQueryClient().client
        let made = Locked(0)
        weak var released: DerivedView<Int>?
        do {
            let empty = QuerySnapshot<Int>.empty(key: "boxes")
            let view = DerivedView(showing: empty, client: client)
            released = view
            let observer = ViewObserver(showing: SnapshotBox(empty))
            observer.follow(view.channel)
            let snapshots = PublisherRecorder(observer.snapshots)
            view.derive {
                made.withLock { $0 += 1 }
                return QuerySnapshot(key: "boxes", showing: .succeed(7))
            }
            for _ in 0..<100_000 { view.changed() }
            #expect(made.withLock { $0 } == 100_001)
            #expect(snapshots.values.map(\.data) == [nil, 7], "the snapshot is published once")
            #expect(observer.box.state.value == 7)
            observer.close()
        }
        #expect(released == nil)
    }

    @Test("a change with nothing an observer can tell publishes nothing; a new value is published once")
    func equalSnapshotsPublishNothing() {
        let counted = Counted(client: TestQueryClient().client)
        let snapshots = PublisherRecorder(counted.observer.snapshots)
        let values = PublisherRecorder(counted.observer.valuePublisher)
        counted.view.changed()
        counted.view.changed()
        #expect(snapshots.values.map(\.data) == [0])
        counted.bump()
        #expect(values.values == [0, 1])
        #expect(snapshots.values.map(\.data) == [0, 1])
        #expect(counted.observer.box.state.value == 1)
    }

    @Test("a change made from a subscriber's callback reaches every subscriber after the current one, in order")
    func changeFromACallbackComesAfter() {
        let counted = Counted(client: TestQueryClient().client)
        let first = Locked<[Int]>([])
        let token = counted.observer.valuePublisher.sink { value in
            first.withLock { $0.append(value) }
            if value == 1 { counted.bump() }
        }
        let second = PublisherRecorder(counted.observer.valuePublisher)
        counted.bump()
        #expect(first.withLock { $0 } == [0, 1, 2])
        #expect(second.values == [0, 1, 2])
        token.cancel()
    }

    @Test("changes from many threads: the last one is shown and published, and what is published only grows")
    func concurrentChangesEndWithTheLast() async {
        let counted = Counted(client: TestQueryClient().client)
        let values = PublisherRecorder(counted.observer.valuePublisher)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<250 { counted.bump() }
        }
        #expect(counted.observer.box.state.value == 1_000)
        #expect(values.values.last == 1_000)
        #expect(values.values == values.values.sorted())
        #expect(Set(values.values).count == values.values.count)
    }
}
