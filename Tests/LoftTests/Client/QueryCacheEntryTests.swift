import LoftTesting
import Testing

@testable import Loft

@Suite struct QueryCacheEntryTests {
    @Test("a fetch request that reaches a removed entry is sent back, and the key's next entry answers")
    func removedEntrySendsRequestsOn() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let removed = harness.client.entry(for: "k")
        harness.client.removeQueries("k")
        let request = FetchRequest(fetch: { 2 }, retry: .never, structuralSharing: true, reason: .manual)
        await #expect(throws: EntryRemovedError.self) { try await removed.fetchValue(request, .ifStale(.zero)) }
        #expect(removed.snapshot.data as? Int == 1, "a removed entry takes no event")
        #expect(try await harness.client.fetchQuery("k") { 3 } == 3)
        #expect(harness.client.existingEntry(for: "k") !== removed)
    }

    @Test(
        "observers coming and going publish only when the key's freshness moves: releasing n consumers costs no n² notifications"
    )
    func observersArriveAndLeaveSilently() {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let entry = harness.client.entry(for: "k")
        let versions = VersionRecorder(entry)
        var consumers = (0..<50).map { _ in Query<Void, Int>.Consumer(key: "k", client: harness.client) }
        #expect(harness.observerCount("k") == 50)
        #expect(versions.values.count == 1, "the first observer gives the key a freshness; the others change nothing")
        consumers.removeAll()
        #expect(harness.observerCount("k") == 0)
        #expect(versions.values.count == 2, "the last one leaving takes it away")
        harness.client.setQueryData(2, for: "k")
        #expect(versions.values.count == 3)
    }

    @Test("an entry nobody observes has no listener; its consumers share one view, which listens once")
    func listenersComeWithViews() {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        harness.client.setQueryData(2, for: "k")
        let entry = harness.client.entry(for: "k")
        #expect(entry.listenerCount == 0)
        var consumers = (0..<3).map { _ in Query<Void, Int>.Consumer(key: "k", client: harness.client) }
        #expect(entry.listenerCount == 1)
        #expect(consumers.allSatisfy { $0.state.value == 2 })
        consumers.removeAll()
        #expect(entry.listenerCount == 0)
    }

    @Test("a change made while a view updates (from a subscriber's callback) reaches the view after that update")
    func changeDuringUpdateRunsAgain() {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "k")
        let consumer = Query<Void, Int>.Consumer(key: "k", client: harness.client)
        let client = harness.client
        let echo = consumer.valuePublisher.sink { value in
            if value == 2 { client.setQueryData(3, for: "k") }
        }
        let values = PublisherRecorder(consumer.valuePublisher)
        client.setQueryData(2, for: "k")
        #expect(values.values == [1, 2, 3])
        #expect(consumer.state.value == 3)
        withExtendedLifetime(echo) {}
    }
}
