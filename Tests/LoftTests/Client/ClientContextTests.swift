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
}
