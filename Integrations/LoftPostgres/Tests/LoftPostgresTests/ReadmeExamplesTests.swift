import Loft
import LoftPostgres
import Testing

/// The README's Swift blocks, line for line (`.ci/check-readme-examples.py` checks that they are here), run
/// against the test server.
@Suite struct ReadmeExamplesTests {
    /// The upstream API of the examples.
    struct Upstream {
        func user(_ id: Int) async throws -> Profile { Profile(id: id, name: "Ada") }
    }

    @Test func use() async throws {
        let upstream = Upstream()
        let databaseURL = try TestServer.url
        let shared = try PostgresQueryCache(url: databaseURL)
        let client = QueryClient(
            cache: shared,
            cacheConfig: QueryCacheConfig(invalidationPolicy: .expiresAfter(60), usagePolicy: .useInsteadOfFetching)
        )
        let user = try await client.fetchQuery(["user", 42]) { try await upstream.user(42) }
        #expect(user == Profile(id: 42, name: "Ada"))
        await client.flush()
        #expect(try await shared.get(for: ["user", 42], as: Profile.self) == user)

        let fleet = PostgresSingleFlight(cache: shared, freshFor: .seconds(60))
        let profile = try await client.fetchQuery(["user", 7]) {
            try await fleet.value(for: ["user", 7], as: Profile.self) { try await upstream.user(7) }
        }
        #expect(profile == Profile(id: 7, name: "Ada"))
    }

    @Test func invalidationThatReachesEveryInstance() async throws {
        let table = TestServer.uniqueTable()
        let other = try Instance(table: table)
        other.link.start()
        await other.link.waitUntilListening()
        _ = try await other.client.fetchQuery(["user", 42]) { Profile(id: 42, name: "Ada") }
        await other.client.flush()  // its row comes before this instance's changes
        let shared = try TestServer.cache(table: table)
        let client = QueryClient(cache: shared)

        let link = PostgresFleetLink(client: client, cache: shared)
        link.start()
        await link.waitUntilListening()
        await client.invalidateQueries(["user", 42]).settled()  // every instance's ["user", 42] is stale now
        client.setQueryData(Profile(id: 42, name: "Ada L."), for: ["user", 42])  // and this is their value

        await other.applied(1)
        await client.flush()
        let row = try #require(try await shared.get(Profile.self, for: ["user", 42]))
        await other.appliedValue(of: ["user", 42], version: try #require(row.version))
        #expect(try other.client.getQueryData(["user", 42], as: Profile.self) == Profile(id: 42, name: "Ada L."))
        await link.stop()
        await other.link.stop()
    }
}
