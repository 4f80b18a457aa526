import LoftTesting
import Observation
import Signals
import Testing

@testable import Loft

/// The publishers of a query or consumer: `sink` calls its closure straight from the view's channel, with the
/// rules of `Subscribers.Sink`; any other subscriber gets its token first and then the values.
@Suite struct ViewPublisherTests {
    @Test("a sink's token, once released, stops the deliveries, as a Subscribers.Sink's does")
    func releasedSinkTokenStops() {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let consumer = Query<Void, Int>.Consumer(key: "k", client: harness.client)
        let received = Locked<[Int]>([])
        var token: Subscription? = consumer.valuePublisher.sink { value in received.withLock { $0.append(value) } }
        harness.client.setQueryData(2, for: "k")
        token = nil
        harness.client.setQueryData(3, for: "k")
        #expect(received.withLock { $0 } == [1, 2])
        #expect(token == nil)
    }

    @Test("a cancelled sink stays silent when its query moves to another key, and is not connected again")
    func cancelledSinkStaysSilentAcrossMoves() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: ["k", 1])
        harness.client.setQueryData(2, for: ["k", 2])
        let query = Query<Int, Int>(
            key: "k", keyAdapter: { $0.appending($1) }, options: QueryOptions(staleTime: .infinity),
            client: harness.client
        ) { $0 }
        _ = try await query.value(for: 1)
        let received = Locked<[Int]>([])
        let token = query.valuePublisher.sink { value in received.withLock { $0.append(value) } }
        let live = PublisherRecorder(query.valuePublisher)
        token.cancel()
        _ = try await query.value(for: 2)
        harness.client.setQueryData(3, for: ["k", 2])
        #expect(received.withLock { $0 } == [1])
        #expect(live.values == [1, 2, 3])
        let entry = try #require(harness.client.existingEntry(for: ["k", 2]))
        #expect(entry.subscribedRelayCount == 1)
    }

    @Test("a subscriber that is not a sink gets its token before the first value, and cancelling it stops it")
    func subscriberGetsTokenFirst() {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let consumer = Query<Void, Int>.Consumer(key: "k", client: harness.client)
        let subscriber = TokenKeeper()
        consumer.valuePublisher.subscribe(subscriber)
        harness.client.setQueryData(2, for: "k")
        subscriber.cancel()
        harness.client.setQueryData(3, for: "k")
        #expect(subscriber.events == ["token", "1", "2"])
        #expect(consumer.state.value == 3)
    }
}

/// A subscriber that records its token and values, and cancels with the token it was given.
private final class TokenKeeper: Subscriber, Sendable {
    private let state = Locked<(token: Subscription?, events: [String])>((nil, []))

    var events: [String] { state.withLock { $0.events } }

    func receive(subscription: Subscription) {
        state.withLock { state in
            state.token = subscription
            state.events.append("token")
        }
    }

    func receive(_ input: Int) {
        state.withLock { $0.events.append("\(input)") }
    }

    func receive(completion: Completion<Never>) {
        state.withLock { $0.events.append("completion") }
    }

    func cancel() {
        state.withLock { $0.token }?.cancel()
    }

    @Test("one publication reaches each kind of listener with its part, and tells the registrar once")
    func eachListenerGetsItsPart() async {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let query = Query<Void, Int>(key: "k", options: QueryOptions(staleTime: .infinity), client: harness.client) {
            try await fetcher.fetch(())
        }
        let snapshots = PublisherRecorder(query.snapshotPublisher)
        let states = PublisherRecorder(query.statePublisher)
        let values = PublisherRecorder(query.valuePublisher)
        let told = Locked(0)
        withObservationTracking {
            _ = query.state
        } onChange: {
            told.withLock { $0 += 1 }
        }
        #expect(told.withLock { $0 } == 0)
        query.refetch()
        await fetcher.waitForCalls(1)
        // Fetching changes the snapshot, not the state (the data shows) nor the value.
        #expect(snapshots.values.map(\.isFetching) == [false, true])
        #expect(states.values.count == 1)
        #expect(values.values == [1])
        #expect(told.withLock { $0 } == 1)
        fetcher.release(returning: 2)
        await harness.client.waitUntilIdle()
        #expect(snapshots.values.map(\.data) == [1, 1, 2])
        #expect(states.values.map(\.value) == [1, 2])
        #expect(values.values == [1, 2])
    }
}
