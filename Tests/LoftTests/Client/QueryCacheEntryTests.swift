import LoftTesting
import Testing

@testable import Loft

@Suite struct QueryCacheEntryTests {
    @Test("observers coming and going publish nothing: releasing n consumers costs no n² notifications")
    func observersArriveAndLeaveSilently() {
        let harness = Harness()
        harness.client.setQueryData(1, for: "k")
        let entry = harness.client.entry(for: "k")
        let versions = PublisherRecorder(entry.changes)
        var consumers = (0..<3).map { _ in Query<Void, Int>.Consumer(key: "k", client: harness.client) }
        #expect(harness.observerCount("k") == 3)
        consumers.removeAll()
        #expect(harness.observerCount("k") == 0)
        #expect(versions.values.count == 1)
        harness.client.setQueryData(2, for: "k")
        #expect(versions.values.count == 2)
    }

    @Test("an entry nobody observes makes no publisher until asked for one")
    func publisherIsLazy() {
        let harness = Harness()
        harness.client.setQueryData(1, for: "k")
        harness.client.setQueryData(2, for: "k")
        let entry = harness.client.entry(for: "k")
        #expect(!entry.hasPublisher)
        let versions = PublisherRecorder(entry.changes)
        #expect(versions.values == [2])
    }
}
