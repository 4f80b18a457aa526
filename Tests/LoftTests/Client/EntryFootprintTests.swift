import LoftTesting
import Signals
import Testing

@testable import Loft

/// What an entry costs when nobody uses it (row (i)): what it keeps inline, and that a settled fetch leaves
/// no buffer behind.
@Suite struct EntryFootprintTests {
    @Test("an entry's state stays within its inline budget: rarely used parts are kept out of line")
    func inlineState() {
        // 162 bytes (409, 353, 345, 273, 265, 256, then 192 before): the fetch, the audience (observers, waiters
        // and what they gave), the attachments (listeners, views, waiters' answers), the observers' summary, and
        // the persistence with the store's version each one pointer; the last fetcher an existential (16); the
        // deadlines and the defaults' `gcTime` 8 bytes each, the change and fetch counters 4 bytes each; the
        // snapshot packed to 80 bytes; no copy of the key (the entry gives it with each event); ids from the
        // client's counter. The storage ends in one-byte fields, so that on Linux the lock follows without
        // padding: with the object's header, one allocation of 184 bytes, a malloc chunk of 192 (208, 224,
        // then 256 with a `pthread_mutex_t`). One byte more and it takes the next chunk. A field added inline
        // shows here first.
        #expect(MemoryLayout<QueryCacheEntry.Storage>.size <= 162)
        #if !canImport(Darwin)
            // The lock: one 32-bit word (a debug build adds the holder's thread, to stop a re-entrant lock).
            #if DEBUG
                #expect(MemoryLayout<LockPrimitive>.size == 16)
            #else
                #expect(MemoryLayout<LockPrimitive>.size == 4)
            #endif
        #endif
        #expect(MemoryLayout<EntrySnapshot>.size <= 80)
        #expect(MemoryLayout<EntryAudience>.size <= 80)
        #expect(MemoryLayout<ObserverTally>.size <= 24)
        // A request is the fetcher object and what the call adds (reason, store checked, `gcTime`); every entry
        // keeps its last fetcher, the caller's closure and the call's settings in one object (a 64-byte chunk;
        // its last boxed request took 112).
        #expect(MemoryLayout<FetchRequest>.size <= 32)
        #expect(MemoryLayout<FetchSettings>.size <= 19)
        // Out of line while unused (one pointer each, made on first use): the listeners, views, waiters' answers
        // and store read (`EntryAttachments`), and the audience.
        #expect(MemoryLayout<[EntryAttachments]>.size == 8)
        // The collection alarm every entry sets: the instant and the entry, 16 bytes in the timer queue's heap (48,
        // then 40 with the key and an id before).
        #expect(MemoryLayout<TimerQueue<QueryCacheEntry>.Alarm>.size == 16)
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

    @Test("an entry only fetchQuery used keeps no audience; an observer makes one, left holding its gcTime")
    func audienceOnlyWhileUsed() async throws {
        let harness = TestQueryClient()
        _ = try await harness.client.fetchQuery("k") { 1 }
        let entry = try #require(harness.client.existingEntry(for: "k"))
        let audience = { entry.storage.withLock { $0.machine.audienceStorage } }
        #expect(audience().isEmpty)
        var consumer: Query<Void, Int>.Consumer? = Query<Void, Int>.Consumer(key: "k", client: harness.client)
        #expect(audience().first?.observers.count == 1)
        consumer = nil
        _ = consumer
        // The longest gcTime an observer gave is kept (a later, shorter one must not win): nothing else is.
        let left = try #require(audience().first)
        #expect(left.observers.isEmpty && left.fetchWaiters.isEmpty && left.initialData == nil)
        #expect(left.observerGCTime == harness.client.defaults.gcTime)
        #expect(entry.isIdle)
    }
}
