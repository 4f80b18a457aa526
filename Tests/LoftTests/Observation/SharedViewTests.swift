import Dispatch
import LoftTesting
import Observation
import Signals
import Testing

@testable import Loft

/// The observers of an entry share typed views: one snapshot per change and per view, handed to every
/// observer's subscribers; a read costs a field read; subscribers follow their observer from view to view.
@Suite struct SharedViewTests {
    @Test("consumers of a key with the same type and options share one view; a select or other options get their own")
    func consumersShareOneView() throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        var consumers = (0..<100).map { _ in Query<Void, Int>.Consumer(key: "k", client: harness.client) }
        let entry = try #require(harness.client.existingEntry(for: "k"))
        #expect(entry.sharedViewCount == 1)
        var other: Query<Void, Int>.Consumer? = Query<Void, Int>.Consumer(
            key: "k", options: QueryOptions(staleTime: .seconds(5)), client: harness.client)
        #expect(entry.sharedViewCount == 2)
        let doubled = Query<Void, Int>.Consumer(
            key: "k", options: QueryOptions(select: { $0 * 2 }), client: harness.client)
        #expect(entry.sharedViewCount == 2)
        #expect(doubled.state.value == 2)
        #expect(other?.state.value == 1)
        consumers.removeAll()
        #expect(entry.sharedViewCount == 1)
        other = nil
        #expect(entry.sharedViewCount == 0)
        withExtendedLifetime((other, doubled)) {}
    }

    @Test("every subscriber of every consumer gets each new value once, in order; an equal value reaches no one")
    func valuesReachEverySubscriberOnce() {
        let harness = TestQueryClient()
        harness.client.setQueryData(0, for: "k")
        let consumers = (0..<3).map { _ in Query<Void, Int>.Consumer(key: "k", client: harness.client) }
        let values = consumers.map { PublisherRecorder($0.valuePublisher) }
        let states = consumers.map { PublisherRecorder($0.statePublisher) }
        for value in [1, 2, 2, 3] { harness.client.setQueryData(value, for: "k") }
        for recorder in values { #expect(recorder.values == [0, 1, 2, 3]) }
        for recorder in states { #expect(recorder.values.map(\.value) == [0, 1, 2, 3]) }
        withExtendedLifetime(consumers) {}
    }

    @Test("a read sees a write at once, even when subscribers hear of it later on the delivery scheduler")
    func readsDoNotWaitForDelivery() {
        let scheduler = TestScheduler()
        let delivery = TestScheduler()
        let client = QueryClient(scheduler: scheduler, deliveryScheduler: delivery)
        client.setQueryData(1, for: "k")
        let consumer = Query<Void, Int>.Consumer(key: "k", client: client)
        let values = PublisherRecorder(consumer.valuePublisher)
        delivery.advance()
        #expect(values.values == [1])
        client.setQueryData(2, for: "k")
        #expect(consumer.state.value == 2)
        #expect(values.values == [1])
        delivery.advance()
        #expect(values.values == [1, 2])
    }

    @Test("a query whose key changes takes its subscribers along: the new key's changes, nothing it showed again")
    func subscribersFollowTheKey() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(5, for: ["k", 1])
        harness.client.setQueryData(5, for: ["k", 2])
        let query = Query<Int, Int>(
            key: "k", keyAdapter: { $0.appending($1) }, options: QueryOptions(staleTime: .infinity),
            client: harness.client
        ) { $0 }
        let values = PublisherRecorder(query.valuePublisher)
        let states = PublisherRecorder(query.statePublisher)
        _ = try await query.value(for: 1)
        _ = try await query.value(for: 2)
        #expect(values.values == [5])
        #expect(states.values.map(\.value) == [nil, 5])
        harness.client.setQueryData(6, for: ["k", 2])
        harness.client.setQueryData(7, for: ["k", 1])
        #expect(values.values == [5, 6])
        #expect(query.state.value == 6)
    }

    @Test("a cancelled subscriber hears nothing more; a released consumer's subscribers hear nothing more")
    func cancelAndReleaseStopDelivery() {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let kept = Query<Void, Int>.Consumer(key: "k", client: harness.client)
        let received = Locked<[Int]>([])
        let subscription = kept.valuePublisher.sink { value in received.withLock { $0.append(value) } }
        var released: Query<Void, Int>.Consumer? = Query<Void, Int>.Consumer(key: "k", client: harness.client)
        let orphan = released.map { PublisherRecorder($0.valuePublisher) }
        harness.client.setQueryData(2, for: "k")
        subscription.cancel()
        released = nil
        harness.client.setQueryData(3, for: "k")
        #expect(received.withLock { $0 } == [1, 2])
        #expect(orphan?.values == [1, 2])
        #expect(kept.state.value == 3)
        withExtendedLifetime(released) {}
    }

    @Test("observation tracking of consumer.state hears each change once, and no write that changes nothing")
    func observationTrackingHearsChanges() {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let consumer = Query<Void, Int>.Consumer(
            key: "k", options: QueryOptions(staleTime: .infinity), client: harness.client)
        let changes = Locked(0)
        func track() {
            withObservationTracking {
                _ = consumer.state
            } onChange: {
                changes.withLock { $0 += 1 }
            }
        }
        track()
        harness.client.setQueryData(2, for: "k")
        #expect(changes.withLock { $0 } == 1)
        #expect(consumer.state.value == 2)
        track()
        harness.client.setQueryData(2, for: "k")  // equal: no change
        #expect(changes.withLock { $0 } == 1)
        harness.client.invalidateQueries("k", refetchType: .none)  // fresh to stale: a change
        #expect(changes.withLock { $0 } == 2)
        #expect(consumer.snapshot.isStale)
    }

    @Test("a consumer whose options change moves to the view they call for and keeps its subscribers")
    func optionsChangeMovesTheView() throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let query = Query<Void, Int>(key: "k", options: QueryOptions(staleTime: .infinity), client: harness.client) {
            1
        }
        let staleness = PublisherRecorder(query.snapshotPublisher.map(\.isStale))
        #expect(staleness.values == [false])
        query.setOptions(QueryOptions(staleTime: .zero, enabled: false))
        query.setOptions(QueryOptions(staleTime: .zero))
        #expect(staleness.values.last == true)
        #expect(try #require(harness.client.existingEntry(for: "k")).sharedViewCount == 1)
    }

    @Test(
        "while one thread writes 1…500, consumers made, subscribed, read and released on others see only rising values, and the kept ones end on 500"
    )
    func concurrentWritersAndObserversSeeOrder() throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(0, for: "k")
        let disorder = Locked(0)
        let kept = Locked<[(Query<Void, Int>.Consumer, Subscription, Locked<Int>)]>([])
        DispatchQueue.concurrentPerform(iterations: 9) { worker in
            guard worker > 0 else {
                for value in 1...500 { harness.client.setQueryData(value, for: "k") }
                return
            }
            for round in 0..<20 {
                let consumer = Query<Void, Int>.Consumer(key: "k", client: harness.client)
                let last = Locked(-1)
                let subscription = consumer.valuePublisher.sink { value in
                    let isRising = last.withLock { last in
                        defer { last = value }
                        return value > last
                    }
                    if !isRising { disorder.withLock { $0 += 1 } }
                }
                var read = -1
                for _ in 0..<50 {
                    let value = consumer.state.value ?? -1
                    if value < read { disorder.withLock { $0 += 1 } }
                    read = value
                }
                // Half are cancelled and released at once; the others are kept to the end.
                if round.isMultiple(of: 2) {
                    subscription.cancel()
                } else {
                    kept.withLock { $0.append((consumer, subscription, last)) }
                }
            }
        }
        // Every send ran to its end on the thread that made it (or on the one draining then), so each kept
        // subscriber has heard the last value: from the send of 500, or as the replay when it joined later.
        let observers = kept.withLock { $0 }
        #expect(observers.count == 80)
        #expect(observers.allSatisfy { $0.2.withLock { $0 } == 500 })
        #expect(observers.allSatisfy { $0.0.state.value == 500 })
        #expect(disorder.withLock { $0 } == 0)
        #expect(try harness.client.getQueryData("k", as: Int.self) == 500)
    }
}
