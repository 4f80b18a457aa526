import Foundation
import LoftTesting
import Testing

@testable import Loft

/// The events a logger, a metrics bridge or a devtool reads on `QueryClient.events` beside the lifecycle's:
/// retries, pauses, hits and misses of reads, saves and collections, each with its key.
@Suite(.timeLimit(.minutes(1))) struct CacheEventTests {
    struct Offline: Error {}

    /// The events of `harness` about `key`, as their descriptions (an error's included).
    func events(_ harness: TestQueryClient, _ key: QueryKey) -> [String] {
        harness.events.values.filter { $0.key == key }.map(\.description)
    }

    @Test("a failed attempt that will be retried is fetchRetrying, with the failure count and the error")
    func retrying() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.fail(Offline()), .fail(Offline()), .answer(7))
        let query = Query(
            key: "n", behavior: .startImmediately(()), options: QueryOptions(retry: .count(3)),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()  // the first attempt failed, the retry waits on the clock
        await harness.advance(by: .seconds(60))
        await harness.advance(by: .seconds(60))
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 7)
        let retries = harness.events.values.compactMap { event -> Int? in
            guard case .fetchRetrying("n", let failureCount, let error) = event, error is Offline else { return nil }
            return failureCount
        }
        #expect(retries == [1, 2])
    }

    @Test("a fetch that waits for the network is fetchPaused, then fetchContinued when it goes on")
    func pausedAndContinued() async throws {
        let harness = TestQueryClient()
        harness.setOnline(false)
        let query = Query<Void, Int>(
            key: "n", behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client
        ) { 1 }
        await harness.until { events(harness, "n").contains("fetchPaused n") }
        #expect(!events(harness, "n").contains("fetchContinued n"))
        harness.setOnline(true)
        await harness.client.waitUntilIdle()
        let names = events(harness, "n").filter { $0.hasPrefix("fetchPaused") || $0.hasPrefix("fetchContinued") }
        #expect(names == ["fetchPaused n", "fetchContinued n"])
        #expect(query.state.value == 1)
    }

    @Test("fetchQuery served from fresh data is a hit; one that fetches is a miss")
    func hitsAndMisses() async throws {
        let harness = TestQueryClient()
        _ = try await harness.client.fetchQuery("n", staleTime: .seconds(30)) { 1 }
        _ = try await harness.client.fetchQuery("n", staleTime: .seconds(30)) { 2 }
        _ = try await harness.client.ensureQueryData("n") { 3 }
        let served = harness.events.values.compactMap { event -> Bool? in
            if case .served("n", let fromCache) = event { fromCache } else { nil }
        }
        #expect(served == [false, true, true])
    }

    @Test("a value the writer stored is saved; garbage collection is collected, then removed")
    func savedAndCollected() async throws {
        let folder = TemporaryDirectory()
        let harness = TestQueryClient(cache: JSONFileQueryCache(directory: folder.url))
        do {
            let query = Query<Void, User>(
                key: "me", options: QueryOptions(gcTime: .duration(.seconds(5)), retry: .never), client: harness.client
            ) { User(id: 1, name: "Ada") }
            harness.client.setQueryData(User(id: 1, name: "Ada"), for: "me")
            await harness.client.flush()
            _ = query
        }
        await harness.advance(by: .seconds(6))
        let names = events(harness, "me").filter {
            ["saved", "collected", "removed"].contains($0.split(separator: " ")[0])
        }
        #expect(names == ["saved me", "collected me", "removed me"])
    }

    @Test("removeQueries removes without collected")
    func removedIsNotCollected() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "n")
        harness.client.removeQueries("n")
        #expect(!events(harness, "n").contains("collected n"))
        #expect(events(harness, "n").contains("removed n"))
    }
}

/// `queryInfos(under:filter:)`: what a filter sees of the entries, for a gauge or a devtool's list.
@Suite struct QueryInfosTests {
    @Test("every entry by default; under a prefix its keys; a filter keeps what it matches")
    func infos() async throws {
        let harness = TestQueryClient()
        for key in [["todos", 1], ["todos", 2], ["users", 1]] as [QueryKey] { harness.client.setQueryData(1, for: key) }
        harness.client.invalidateQueries(["users"])
        #expect(Set(harness.client.queryInfos().map(\.key)) == [["todos", 1], ["todos", 2], ["users", 1]])
        #expect(Set(harness.client.queryInfos(under: ["todos"]).map(\.key)) == [["todos", 1], ["todos", 2]])
        #expect(harness.client.queryInfos(filter: QueryFilter(isStale: true)).map(\.key) == [["users", 1]])
    }
}
