import LoftTesting
import TestSupport
import Testing

@testable import Loft

/// The client's memory budget: what is evicted, in which order, what never is, and how it is reported.
@Suite(.timeLimit(.minutes(1))) struct MemoryBudgetTests {
    /// The keys evicted so far, with why, in order.
    func evicted(_ harness: TestQueryClient) -> [String] {
        harness.events.values.compactMap { event in
            guard case .evicted(let key, let reason) = event else { return nil }
            return "\(key) \(reason.rawValue)"
        }
    }

    func fetch(_ harness: TestQueryClient, _ key: QueryKey, _ value: Int = 1) async throws {
        _ = try await harness.client.fetchQuery(key) { value }
    }

    @Test("over an entry budget, the least recently used idle entry is evicted, said by evicted then removed")
    func leastRecentlyUsedGoes() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(3))
        for key in ["a", "b", "c", "d"] { try await fetch(harness, QueryKey(value: key)) }
        #expect(evicted(harness) == ["a budget"])
        #expect(try harness.client.getQueryData("a", as: Int.self) == nil)
        #expect(try harness.client.getQueryData("d", as: Int.self) == 1)
        #expect(harness.client.memoryUsage == 3)
        let afterEviction = harness.events.values.map(\.description).drop { $0 != "evicted a (budget)" }
        #expect(afterEviction.dropFirst().first == "removed a")
    }

    @Test("a read counts as a use: getQueryData and a fresh fetchQuery move an entry to the most recent")
    func readsAreUses() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(3))
        for key in ["a", "b", "c"] { try await fetch(harness, QueryKey(value: key)) }
        _ = try harness.client.getQueryData("a", as: Int.self)
        try await fetch(harness, "d")
        #expect(evicted(harness) == ["b budget"])
        _ = try await harness.client.fetchQuery("c", staleTime: .infinity) { 2 }
        try await fetch(harness, "e")
        #expect(evicted(harness) == ["b budget", "a budget"])
    }

    @Test("reading the most recent entry again moves nothing; one that left the list and came back is read anew")
    func hotReadsKeepOrder() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(3))
        for key in ["a", "b", "c"] { try await fetch(harness, QueryKey(value: key)) }
        for _ in 0..<3 { _ = try harness.client.getQueryData("c", as: Int.self) }  // the most recent already
        _ = try harness.client.getQueryData("a", as: Int.self)  // b, c, a
        // c turns busy (observed: off the list), then idle again: the most recent once more.
        withExtendedLifetime(Query<Void, Int>.Consumer(key: "c", client: harness.client)) {}
        _ = try harness.client.getQueryData("b", as: Int.self)  // a, c, b
        try await fetch(harness, "d")
        try await fetch(harness, "e")
        #expect(evicted(harness) == ["a budget", "c budget"])
    }

    @Test("a write counts as a use, and setQueryData on a new key enforces the budget")
    func writesAreUses() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(2))
        harness.client.setQueryData(1, for: "a")
        harness.client.setQueryData(1, for: "b")
        harness.client.setQueryData(2, for: "a")
        harness.client.setQueryData(1, for: "c")
        #expect(evicted(harness) == ["b budget"])
    }

    @Test("observed entries are never evicted; a budget they exceed is reported once, not thrashed")
    func observedStayAndOverIsReportedOnce() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(2))
        let queries = (0..<3).map { index in
            Query<Void, Int>(key: QueryKey("q", index), behavior: .startImmediately(()), client: harness.client) {
                index
            }
        }
        await harness.until { queries.allSatisfy { $0.state.value != nil } }
        let fourth = Query<Void, Int>(key: "q4", behavior: .startImmediately(()), client: harness.client) { 4 }
        await harness.until { fourth.state.value == 4 }
        #expect(evicted(harness).isEmpty)
        let reports = harness.events.values.filter { if case .overBudget = $0 { true } else { false } }
        #expect(reports.map(\.description) == ["overBudget: 3 in use, over the limit of 2"])
        #expect(harness.client.memoryUsage == 4)
        withExtendedLifetime(queries) {}
    }

    @Test("an entry that is fetching is never evicted; it may be once its fetch ended")
    func fetchingStays() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(1))
        let slow = ScriptedFetcher<Void, Int>(.hang())
        let running = Task { try await harness.client.fetchQuery("slow") { try await slow.fetch(()) } }
        await slow.waitForCalls(1)
        try await fetch(harness, "fast")
        #expect(evicted(harness) == ["fast budget"])
        #expect(harness.client.isFetching("slow") == 1)
        slow.release(returning: 9)
        #expect(try await running.value == 9)
        #expect(try harness.client.getQueryData("slow", as: Int.self) == 9)
    }

    @Test("a cost budget weighs each value by the cost given, and evicts until the total fits")
    func costBudget() async throws {
        let harness = TestQueryClient(memoryBudget: .cost(10) { ($0 as? String)?.count ?? 1 })
        harness.client.setQueryData("aaaa", for: "a")
        harness.client.setQueryData("bbbb", for: "b")
        #expect(harness.client.memoryUsage == 8)
        harness.client.setQueryData("ccccccc", for: "c")
        #expect(evicted(harness) == ["a budget", "b budget"])
        #expect(harness.client.memoryUsage == 7)
        harness.client.setQueryData("cc", for: "c")
        #expect(harness.client.memoryUsage == 2)
    }

    @Test("trim(to:) evicts least recently used first; trim(to: 0) drops every unobserved, idle entry")
    func trim() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(100))
        for key in ["a", "b", "c", "d"] { try await fetch(harness, QueryKey(value: key)) }
        let observed = Query<Void, Int>(key: "seen", behavior: .startImmediately(()), client: harness.client) { 0 }
        await harness.until { observed.state.value == 0 }
        #expect(harness.client.trim(to: 3) == 2)
        #expect(evicted(harness) == ["a trim", "b trim"])
        #expect(harness.client.trim(to: 0) == 2)
        #expect(harness.client.memoryUsage == 1)
        #expect(observed.state.value == 0)
    }

    @Test("without a budget, trim(to:) evicts the entries whose data is oldest first")
    func trimWithoutBudget() async throws {
        let harness = TestQueryClient()
        for key in ["a", "b", "c"] {
            try await fetch(harness, QueryKey(value: key))
            await harness.advance(by: .seconds(1))
        }
        #expect(harness.client.trim(to: 1) == 2)
        #expect(evicted(harness) == ["a trim", "b trim"])
        #expect(harness.client.memoryUsage == 1)
    }

    @Test("a persistent cache keeps what memory evicts; the next read of the key is its value again")
    func persistentCacheKeepsEvicted() async throws {
        let disk = InMemoryQueryCache()
        let harness = TestQueryClient(
            cache: disk, cacheConfig: QueryCacheConfig(usagePolicy: .useInsteadOfFetching),
            memoryBudget: .entries(1))
        try await fetch(harness, "a", 1)
        try await fetch(harness, "b", 2)
        await harness.client.flush()
        #expect(evicted(harness) == ["a budget"])
        #expect(try disk.get(Int.self, for: "a")?.value == 1)
        let fetcher = ScriptedFetcher<Void, Int>(.answer(99))
        #expect(try await harness.client.fetchQuery("a") { try await fetcher.fetch(()) } == 1)
        #expect(fetcher.callCount == 0)
    }

    @Test("the mutation cache keeps at most its budget of settled calls, the oldest going first")
    func mutationBudget() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(10, mutationCalls: 2))
        let mutation = Mutation<Int, Int>(client: harness.client) { $0 * 10 }
        for request in 1...4 { _ = try await mutation.mutate(request) }
        await harness.client.waitUntilIdle()
        let kept = harness.client.mutations().compactMap { $0.request as? Int }
        #expect(kept.sorted() == [3, 4])
        #expect(mutation.state.value == 40)
    }

    @Test("many tasks reading and writing under a small budget: every answer is right and the budget holds")
    func stress() async throws {
        let client = QueryClient(memoryBudget: .entries(20))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<300 {
                        let id = (worker * 7 + round) % 60
                        let value = try await client.fetchQuery(QueryKey("item", id), staleTime: .infinity) { id }
                        #expect(value == id)
                    }
                }
            }
            try await group.waitForAll()
        }
        await client.waitUntilIdle()
        #expect(client.memoryUsage <= 20)
        #expect(client.memoryUsage == client.queryInfos(under: QueryKey(parts: [])).count)
    }
}
