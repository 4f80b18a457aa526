import Foundation
import LoftTesting
import Testing

@testable import Loft

/// The inspector's entries, what a devtool lists: each entry's info, data (and its JSON), error, and the
/// moments it turns stale and is collected, on the client's clock.
@Suite struct CacheInspectorEntriesTests {
    struct Broken: Error {}

    @Test("an observed entry turns stale at its update plus the staleTime, and has no collection moment")
    func observed() async throws {
        let harness = TestQueryClient()
        let query = Query<Void, User>(
            key: ["users", 1], behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(30)),
            client: harness.client
        ) { User(id: 1, name: "Ada") }
        await harness.client.waitUntilIdle()
        let entry = try #require(CacheInspector(client: harness.client).entry(for: ["users", 1]))
        let updatedAt = try #require(entry.info.dataUpdatedAt)
        #expect(entry.staleAt == updatedAt + .seconds(30) && entry.staleTime == .seconds(30))
        #expect(entry.collectedAt == nil)
        #expect(entry.dataJSON == #"{"id":1,"name":"Ada"}"#)
        #expect(entry.info.observerCount == 1 && entry.failureCount == 0 && !entry.isInvalidated)
        _ = query
    }

    @Test("an unobserved entry is collected gcTime after its last observer left; invalidated, it has no staleAt")
    func unobserved() async throws {
        let harness = TestQueryClient()
        do {
            let query = Query<Void, Int>(
                key: "n", behavior: .startImmediately(()),
                options: QueryOptions(staleTime: .seconds(30), gcTime: .duration(.seconds(60))), client: harness.client
            ) { 1 }
            await harness.client.waitUntilIdle()
            _ = query
        }
        let left = harness.client.scheduler.now
        harness.client.invalidateQueries("n")
        let entry = try #require(CacheInspector(client: harness.client).entry(for: "n"))
        #expect(entry.collectedAt == left + .seconds(60))
        #expect(entry.isInvalidated && entry.staleAt == nil)
        #expect(entry.dataJSON == "1")
    }

    @Test("entries() lists every entry sorted by key; a failed fetch shows its error; none for a missing key")
    func list() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(2, for: "b")
        harness.client.setQueryData(1, for: "a")
        await #expect(throws: Broken.self) {
            try await harness.client.fetchQuery("c") { () async throws -> Int in throw Broken() }
        }
        let entries = CacheInspector(client: harness.client).entries()
        #expect(entries.map(\.info.key) == ["a", "b", "c"])
        #expect(entries[2].error is Broken && entries[2].data == nil && entries[2].dataJSON == nil)
        #expect(CacheInspector(client: harness.client).entry(for: "missing") == nil)
    }
}
