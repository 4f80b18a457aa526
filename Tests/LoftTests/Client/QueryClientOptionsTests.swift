import LoftTesting
import Testing

@testable import Loft

/// The query API a TanStack user reaches for: defaults by prefix, filters, lifetimes, live options.
@Suite struct QueryClientOptionsTests {
    @Test("setQueryDefaults applies by key prefix; the longest prefix wins; a query's own options win over both")
    func prefixDefaults() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryDefaults(QueryDefaults(staleTime: .seconds(60)), for: "settings")
        harness.client.setQueryDefaults(QueryDefaults(staleTime: .seconds(5)), for: ["settings", "volatile"])
        #expect(harness.client.defaults(for: ["settings", "theme"]).staleTime == .seconds(60))
        #expect(harness.client.defaults(for: ["settings", "volatile", 1]).staleTime == .seconds(5))
        #expect(harness.client.defaults(for: "users").staleTime == .zero)
        harness.client.setQueryData(1, for: ["settings", "theme"])
        await harness.advance(by: .seconds(30))
        #expect(try harness.client.snapshot(for: ["settings", "theme"], as: Int.self).isStale == false)
        let query = Query<Void, Int>(
            key: ["settings", "theme"], behavior: .startImmediately(()), options: QueryOptions(staleTime: .zero),
            client: harness.client
        ) { 2 }
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 2)
    }

    @Test("filters: active or inactive, stale or fresh, fetch status, and a predicate")
    func filters() async {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(10)))
        let active = Query<Void, Int>(key: ["f", "active"], behavior: .startImmediately(()), client: harness.client) {
            1
        }
        harness.client.setQueryData(2, for: ["f", "inactive"])
        await harness.client.waitUntilIdle()
        let keys = { (filter: QueryFilter) in
            harness.client.entries(matching: "f", exact: false, filter: filter).map(\.key)
        }
        #expect(keys(.active) == [["f", "active"]])
        #expect(keys(.inactive) == [["f", "inactive"]])
        #expect(keys(QueryFilter(isStale: true)).isEmpty)
        await harness.advance(by: .seconds(10))
        // Nobody observes the inactive entry: its age is not consulted, it turns stale only when invalidated.
        #expect(keys(QueryFilter(isStale: true)) == [["f", "active"]])
        harness.client.invalidateQueries(["f", "inactive"], exact: true)
        #expect(Set(keys(QueryFilter(isStale: true))) == [["f", "active"], ["f", "inactive"]])
        #expect(keys(QueryFilter(predicate: { $0.observerCount == 1 })) == [["f", "active"]])
        harness.client.removeQueries("f", filter: .inactive)
        #expect(harness.client.existingEntry(for: ["f", "inactive"]) == nil)
        _ = active
    }

    @Test("staleTime infinity is fresh until invalidated; static is fresh even then; gcTime infinity never collects")
    func lifetimes() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        let infinite = Query(
            key: "infinite", behavior: .startImmediately(()), options: QueryOptions(staleTime: .infinity),
            client: harness.client, fetcher: fetcher.fetch)
        let still = Query(
            key: "static", behavior: .startImmediately(()), options: QueryOptions(staleTime: .static),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(86_400))
        #expect(!infinite.snapshot.isStale)
        await harness.client.invalidateQueries().settled()
        #expect(harness.fetchReasons(for: "infinite") == [.firstUse, .invalidation])
        #expect(harness.fetchReasons(for: "static") == [.firstUse])
        #expect(!still.snapshot.isStale)

        var kept: Query<Void, Int>? = Query(
            key: "kept", behavior: .startImmediately(()), options: QueryOptions(gcTime: .infinity),
            client: harness.client
        ) { 3 }
        await harness.client.waitUntilIdle()
        kept = nil
        await harness.advance(by: .seconds(1_000_000))
        #expect(try harness.client.getQueryData("kept", as: Int.self) == 3)
        #expect(kept == nil)
    }

    @Test("setEnabled changes a live query: disabled it ignores triggers, enabled it fetches as if it appeared")
    func liveOptions() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        let query = Query(
            key: "live", options: QueryOptions(enabled: false), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.invalidateQueries("live").settled()
        #expect(fetcher.callCount == 0)
        query.setEnabled(true)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        query.setOptions(QueryOptions(select: { $0 * 100 }))
        #expect(query.state.value == 100)
    }

    @Test("cancelQueries(revert: false) keeps the state as it is, idle")
    func cancelWithoutRevert() async {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .count(1)))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .fail(APIError.offline), .hang())
        let query = Query(key: "k", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(query.snapshot.failureCount == 1)  // waiting to retry
        harness.client.cancelQueries("k", revert: false)
        #expect(query.snapshot.failureCount == 1)
        #expect(query.snapshot.fetchStatus == .idle)
        #expect(query.state.value == 1)
    }

    @Test("setQueryData(_:for:updatedAt:) records when the data counts as fetched")
    func setQueryDataUpdatedAt() throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(30)))
        let past = harness.scheduler.now - .seconds(60)
        harness.client.setQueryData(1, for: "old", updatedAt: past)
        let snapshot = try harness.client.snapshot(for: "old", as: Int.self)
        #expect(snapshot.dataUpdatedAt == past)
        #expect(snapshot.isStale)
    }

    @Test("async invalidateQueries and refetchQueries return once the refetches they started have settled")
    func asyncBulkOperations() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2), .answer(3))
        let query = Query(key: "a", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.client.invalidateQueries("a").settled()
        #expect(query.state.value == 2)
        await harness.client.refetchQueries("a").settled()
        #expect(query.state.value == 3)
    }

    @Test("select that changes the type: [User] in the cache, [String] on the screen, selected once per value")
    func selectionChangesType() async {
        let harness = TestQueryClient()
        let users = Query<Void, [User]>(key: "users", behavior: .startImmediately(()), client: harness.client) {
            [User(id: 1, name: "ada"), User(id: 2, name: "grace")]
        }
        let names = users.select { $0.map(\.name) }
        await harness.client.waitUntilIdle()
        #expect(names.state.value == ["ada", "grace"])
        harness.client.setQueryData([User(id: 3, name: "linus")], for: "users")
        #expect(names.state.value == ["linus"])
        #expect(names.snapshot.status == .success)
    }

    @Test("a fetcher that reacts to cancellation is cancelled when the last observer leaves; the state comes back")
    func cancelWhenUnobserved() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "c")
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        var query: Query<Void, Int>? = Query(
            key: "c", behavior: .startImmediately(()), options: QueryOptions(cancelWhenUnobserved: true),
            client: harness.client, fetcher: fetcher.fetch)
        await fetcher.waitForCalls(1)
        query = nil
        await harness.client.waitUntilIdle()
        #expect(harness.client.isFetching() == 0)
        #expect(try harness.client.getQueryData("c", as: Int.self) == 1)
        #expect(query == nil)
    }
}
