import LoftTesting
import Testing

@testable import Loft

/// What an entry costs when nobody uses it (row (i)): what it keeps inline, and that a settled fetch leaves
/// no buffer behind.
@Suite struct EntryFootprintTests {
    @Test("an entry's state stays within its inline budget: rarely used parts are kept out of line")
    func inlineState() {
        // 345 bytes when written (409, then 353 before): the fetch, the observers' summary and the persistence
        // each one pointer, the three deadlines and the store's version 8 bytes each. With the object's header
        // and the lock, the entry's state is one allocation of 408 bytes: 8 more and it takes the next size
        // class. A field added inline shows here first.
        #expect(MemoryLayout<QueryCacheEntry.Storage>.size <= 345)
        #expect(MemoryLayout<ObserverTally>.size <= 24)
        // Every entry keeps its last request: its `meta` is one pointer (98 bytes before, 66 now).
        #expect(MemoryLayout<FetchRequest>.size <= 66)
    }

    @Test("a fetch that settled leaves no waiter and no continuation buffer in its entry")
    func settledFetchLeavesNoBuffers() async throws {
        let harness = TestQueryClient()
        async let first = harness.client.fetchQuery("k") { 1 }
        async let second = harness.client.fetchQuery("k") { 2 }
        let values = try await [first, second]
        #expect(values.allSatisfy { $0 == 1 || $0 == 2 })
        let entry = try #require(harness.client.existingEntry(for: "k"))
        let (continuations, waiters) = entry.storage.withLock {
            ($0.continuations.capacity, $0.machine.fetchWaiters.count)
        }
        #expect(continuations == 0)
        #expect(waiters == 0)
    }
}
