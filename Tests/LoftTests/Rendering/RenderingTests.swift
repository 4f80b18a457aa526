import LoftTesting
import Testing

@testable import Loft

struct NameRenderer: QueryRenderer {
    func loadingView() -> String { "Loading…" }
    func successView(for value: String) -> String { "Name: \(value)" }
    func failureView(for error: any Error) -> String { "Failed: \(error)" }
}

struct SaveRenderer: MutationRenderer {
    func loadingView() -> String { "Saving…" }
    func successView(for value: Int) -> String { "Saved #\(value)" }
    func failureView(for error: any Error) -> String { "Not saved: \(error)" }
}

@Suite(.timeLimit(.minutes(1))) struct RenderingTests {
    @Test("a query renderer picks one view per state; idle defaults to loading")
    func queryRenderer() {
        let renderer = NameRenderer()
        #expect(renderer.view(for: QueryState<String>.idle) == "Loading…")
        #expect(renderer.view(for: QueryState<String>.loading) == "Loading…")
        #expect(renderer.view(for: QueryState<String>.succeed("ada")) == "Name: ada")
        #expect(renderer.view(for: QueryState<String>.failed(APIError.offline)) == "Failed: offline")
    }

    @Test("a snapshot's view notes a background refresh, a failed refresh and placeholder data")
    func snapshotNotes() {
        let renderer = NameRenderer()
        let refreshing = QuerySnapshot<String>(
            key: "k", data: "ada", error: nil, status: .success, fetchStatus: .fetching, dataUpdatedAt: nil,
            isStale: true, isPlaceholderData: false, failureCount: 0)
        #expect(renderer.view(for: refreshing) == "Name: ada  (refreshing…)")
        let failed = QuerySnapshot<String>(
            key: "k", data: "ada", error: APIError.offline, status: .error, fetchStatus: .idle, dataUpdatedAt: nil,
            isStale: true, isPlaceholderData: false, failureCount: 1)
        #expect(renderer.view(for: failed) == "Name: ada  (refresh failed: offline)")
    }

    @Test("a mutation renderer has the same shape; idle says ready")
    func mutationRenderer() {
        let renderer = SaveRenderer()
        #expect(renderer.view(for: QueryState<Int>.idle) == "Ready.")
        #expect(renderer.view(for: QueryState<Int>.succeed(3)) == "Saved #3")
    }

    @Test(
        "the cache inspector renders an aligned table: key, status, fetch, observers, age, freshness (inactive unobserved)"
    )
    func inspector() async {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(10)))
        #expect(CacheInspector(client: harness.client).render() == "(empty cache)")
        let query = Query<Void, Int>(key: ["users", 42], behavior: .startImmediately(()), client: harness.client) { 1 }
        harness.client.setQueryData("x", for: "settings")
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(65))
        let expected = """
            key       status   fetch  observers  age    freshness
            settings  success  idle   0          1m05s  inactive
            users/42  success  idle   1          1m05s  stale
            """
        #expect(CacheInspector(client: harness.client).render() == expected)
        #expect(CacheInspector.format(age: .seconds(7_260)) == "2h01m")
        _ = query
    }

    @Test("the cache inspector lists pending mutation calls under the queries, running or paused")
    func inspectorMutations() async {
        let harness = TestQueryClient()
        let hanging = ScriptedFetcher<Int, Int>(.hang(), .answer(2))
        let add = Mutation(
            client: harness.client, options: MutationOptions(scope: "todos", mutationKey: ["todos", "add"]),
            fetcher: hanging.fetch)
        add.execute(with: 1)
        await hanging.waitForCalls(1)
        add.execute(with: 2)
        await harness.until { harness.client.mutations().last?.isPaused == true }
        harness.scheduler.advance(by: .seconds(3))
        let expected = """
            (empty cache)

            mutation  key        scope  state    failures  age
            #1        todos/add  todos  running  0         3s
            #2        todos/add  todos  paused   0         3s
            """
        #expect(CacheInspector(client: harness.client).render() == expected)
        hanging.release(returning: 1)
        await harness.client.waitUntilIdle()
        #expect(CacheInspector(client: harness.client).render() == "(empty cache)")
    }
}
