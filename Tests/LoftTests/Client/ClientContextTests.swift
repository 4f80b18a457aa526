import LoftTesting
import Testing

@testable import Loft

@Suite struct ClientContextTests {
    @Test("the ways back to the client do not deepen with use: 100,000 timers and collections, then a release")
    // Each write sets a gc timer (the finder read once) and each collection calls the collector; a lock over a
    // bare closure wrapped it in one more thunk per read, and this release overflowed the stack.
    func linksStayFlat() async {
        let scheduler = TestScheduler()
        weak var released: QueryClient?
        do {
            let client = QueryClient(defaults: QueryDefaults(gcTime: .seconds(1)), scheduler: scheduler)
            released = client
            for index in 0..<100_000 { client.setQueryData(index, for: QueryKey("entry", index)) }
            scheduler.advance(by: .seconds(1))  // every entry collected: the collector called 100,000 times
            #expect(client.existingEntry(for: QueryKey("entry", 99_999)) == nil)
        }
        #expect(released == nil)  // released without recursing through a chain of thunks
        #expect(scheduler.pendingCount == 0)  // and its timer queue left nothing scheduled
    }

    @Test("a client goes with entries still waiting for collection, and its entry table with it")
    // The links from the context back to the client hold its entry table, and the timer queue's alarms hold
    // their entries, whose entries hold the context: the client cuts both when it goes, or the table, the queue
    // and the entries would keep each other.
    func clientReleasesItsEntries() {
        let scheduler = TestScheduler()
        weak var released: QueryClient?
        weak var entry: QueryCacheEntry?
        do {
            let client = QueryClient(defaults: QueryDefaults(gcTime: .seconds(60)), scheduler: scheduler)
            released = client
            client.setQueryData(1, for: "kept")
            entry = client.existingEntry(for: "kept")
            #expect(entry != nil)
        }
        #expect(released == nil)
        #expect(entry == nil)
    }

    @Test("an entry that outlives its client is neither collected nor found when its alarm rings")
    func entryOutlivesClient() throws {
        let scheduler = TestScheduler()
        weak var released: QueryClient?
        var kept: QueryCacheEntry?
        do {
            let client = QueryClient(defaults: QueryDefaults(gcTime: .seconds(1)), scheduler: scheduler)
            released = client
            client.setQueryData(1, for: "kept")
            kept = client.existingEntry(for: "kept")
        }
        #expect(released == nil)
        scheduler.advance(by: .seconds(2))  // its gc alarm rings: the links are cut, nothing happens
        let entry = try #require(kept)
        #expect(entry.data as? Int == 1)
    }

    @Test("a client goes with settled mutations waiting for removal, and its mutation cache with it")
    // The collector's timer holds the mutation cache (strongly: a weak reference would slow every retain of
    // it); the client cancels it when it goes.
    func clientReleasesItsMutationCache() async throws {
        let scheduler = TestScheduler()
        weak var released: QueryClient?
        weak var cache: MutationCache?
        do {
            let client = QueryClient(scheduler: scheduler)
            released = client
            cache = client.mutationCache
            let mutation = Mutation<Int, Int>(client: client) { $0 + 1 }
            #expect(try await mutation.mutate(1) == 2)
            #expect(client.mutations().count == 1)  // settled, removed only after gcTime
            #expect(scheduler.pendingCount == 1)  // the collector's timer
        }
        #expect(released == nil)
        #expect(cache == nil)
        #expect(scheduler.pendingCount == 0)
    }
}
