import LoftTesting
import Testing

@testable import Loft

/// Point 3 of the day-one API: a consumer without a `staleTime` of its own judges freshness as the key does,
/// so observing never makes fresh data stale.
@Suite struct ConsumerFreshnessTests {
    /// A query of "count" fresh for 30 s, fetching at once.
    private func countQuery(_ harness: TestQueryClient) -> Query<Void, Int> {
        Query<Void, Int>(
            key: "count", behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(30)),
            client: harness.client
        ) { 3 }
    }

    private func freshness(_ harness: TestQueryClient) -> String {
        CacheInspector(client: harness.client).render()
    }

    @Test("a consumer with default options takes its query's staleTime: fresh while the query says so, then stale")
    func consumerTakesTheQuerysStaleTime() async throws {
        let harness = TestQueryClient()
        let query = Query<Void, [String]>(
            key: "issues", behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(30)),
            client: harness.client
        ) { ["open"] }
        await harness.client.waitUntilIdle()
        let consumer = Consumer<[String]>(key: "issues", client: harness.client)
        #expect(consumer.state.value == ["open"])
        #expect(!consumer.snapshot.isStale)
        #expect(!query.snapshot.isStale)
        #expect(try !harness.client.snapshot(for: "issues", as: [String].self).isStale)
        #expect(freshness(harness).contains("fresh"))
        await harness.advance(by: .seconds(31))
        #expect(consumer.snapshot.isStale, "the consumer heard the data turn stale when the query's window ended")
        #expect(query.snapshot.isStale)
        #expect(freshness(harness).contains("stale"))
    }

    @Test("a consumer made before the query judges by the query's staleTime once the query observes the key")
    func consumerBeforeQuery() async {
        let harness = TestQueryClient()
        let consumer = Query<Void, Int>.Consumer(key: "count", client: harness.client)
        let query = countQuery(harness)
        await harness.client.waitUntilIdle()
        #expect(consumer.state.value == 3)
        #expect(!consumer.snapshot.isStale)
        _ = query
    }

    @Test("a consumer given a staleTime judges by its own, and then the key is stale for the inspector")
    func consumerWithItsOwnStaleTime() async {
        let harness = TestQueryClient()
        let query = countQuery(harness)
        await harness.client.waitUntilIdle()
        let eager = Consumer<Int>(key: "count", options: QueryOptions(staleTime: .zero), client: harness.client)
        let relaxed = Consumer<Int>(key: "count", client: harness.client)
        #expect(eager.snapshot.isStale)
        #expect(!query.snapshot.isStale)
        #expect(relaxed.snapshot.isStale, "without one of its own it judges as the key: stale for one observer")
        #expect(freshness(harness).contains("stale"))
    }

    @Test("with no query observing, a consumer takes the prefix defaults' staleTime")
    func consumerTakesThePrefixDefaults() async {
        let harness = TestQueryClient()
        harness.client.setQueryDefaults(QueryDefaults(staleTime: .seconds(60)), for: "settings")
        harness.client.setQueryData("dark", for: ["settings", "theme"])
        let consumer = Consumer<String>(key: ["settings", "theme"], client: harness.client)
        #expect(!consumer.snapshot.isStale)
        await harness.advance(by: .seconds(61))
        #expect(consumer.snapshot.isStale)
    }

    @Test("Consumer<Value> is Query<Void, Value>.Consumer, spelled without the request type")
    func consumerSpelling() {
        let harness = TestQueryClient()
        let consumer: Query<Void, [String]>.Consumer = Consumer<[String]>(key: "issues", client: harness.client)
        #expect(consumer.state.value == nil)
        #expect(consumer.snapshot.status == .pending)
    }
}
