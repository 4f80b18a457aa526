import Foundation
import LoftTesting
import Testing

@testable import Loft

@Suite struct HydrationTests {
    @Test("a dehydrated client, encoded to JSON and decoded elsewhere, restores its successful queries")
    func roundTrip() async throws {
        let source = TestQueryClient()
        source.client.setQueryData(User(id: 1, name: "Ada"), for: ["user", 1])
        source.client.setQueryData([1, 2, 3], for: "numbers")
        await source.client.prefetchQuery("broken", retry: .never) { () async throws -> Int in throw APIError.offline }
        let json = try JSONEncoder().encode(source.client.dehydrate())

        let target = TestQueryClient()
        await target.advance(by: .seconds(5))
        let restored = target.client.hydrate(try JSONDecoder().decode(DehydratedState.self, from: json))
        #expect(Set(restored) == [["user", 1], "numbers"])
        #expect(try target.client.getQueryData(["user", 1], as: User.self)?.name == "Ada")
        #expect(try target.client.getQueryData("numbers", as: [Int].self) == [1, 2, 3])
        #expect(try target.client.getQueryData("broken", as: Int.self) == nil)
        #expect(target.client.existingEntry(for: ["user", 1])?.snapshot.dataUpdatedAt == source.scheduler.now)

        // A query of the type reads the hydrated data without fetching while it is fresh.
        let fetcher = ScriptedFetcher<Void, User>(.answer(User(id: 1, name: "Fetched")))
        let query = Query(
            key: ["user", 1], behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(60)),
            client: target.client, fetcher: fetcher.fetch)
        await target.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada")
        #expect(fetcher.callCount == 0)
        // And dehydrating again passes the hydrated JSON through.
        #expect(target.client.dehydrate("numbers").queries.first?.json == "[1,2,3]")
    }

    @Test("hydrating never overwrites newer data already in the client")
    func neverOverwritesNewer() async throws {
        let source = TestQueryClient()
        source.client.setQueryData("old", for: "k")
        let state = source.client.dehydrate()

        let target = TestQueryClient()
        await target.advance(by: .seconds(1))
        target.client.setQueryData("newer", for: "k")
        #expect(target.client.hydrate(state).isEmpty)
        #expect(try target.client.getQueryData("k", as: String.self) == "newer")
    }

    @Test("hydrating replaces older data")
    func replacesOlder() async throws {
        let target = TestQueryClient()
        target.client.setQueryData("old", for: "k")
        let source = TestQueryClient()
        await source.advance(by: .seconds(1))
        source.client.setQueryData("new", for: "k")
        #expect(target.client.hydrate(source.client.dehydrate()) == ["k"])
        #expect(try target.client.getQueryData("k", as: String.self) == "new")
    }

    struct Opaque: Sendable {}

    @Test("data that is not Encodable is left out and reported")
    func notEncodable() {
        let harness = TestQueryClient()
        harness.client.setQueryData(Opaque(), for: "opaque")
        harness.client.setQueryData(1, for: "one")
        #expect(harness.client.dehydrate().queries.map(\.key) == ["one"])
        #expect(
            harness.events.values.contains {
                if case .persistenceFailed("opaque", let error) = $0 {
                    return error as? CacheError == .notCodable(key: "opaque", type: "Opaque")
                }
                return false
            })
    }

    @Test("hydrated data read as a type that does not decode it is a typed mismatch")
    func wrongType() {
        let harness = TestQueryClient()
        harness.client.hydrate(
            DehydratedState(queries: [
                .init(key: "k", json: "\"text\"", dataUpdatedAt: harness.scheduler.now, type: "String")
            ]))
        #expect(throws: QueryError.typeMismatch(key: "k", expected: "Int", actual: "JSON of String")) {
            try harness.client.getQueryData("k", as: Int.self)
        }
    }
}
