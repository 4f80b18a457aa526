import Loft
import LoftPostgres
import NIOConcurrencyHelpers
import Testing

/// Two clients (two instances of a service) on one PostgreSQL table.
@Suite struct SharedClientTests {
    @Test func aValueOneClientFetchedIsServedToTheOtherFromTheDatabase() async throws {
        let table = TestServer.uniqueTable()
        let config = QueryCacheConfig(invalidationPolicy: .expiresAfter(3600), usagePolicy: .useInsteadOfFetching)
        let first = QueryClient(cache: try TestServer.cache(table: table), cacheConfig: config)
        let second = QueryClient(cache: try TestServer.cache(table: table), cacheConfig: config)
        let upstream = UpstreamCalls()

        let fetched = try await first.fetchQuery(["user", 42]) {
            upstream.record()
            return Profile(id: 42, name: "Ada")
        }
        await first.flush()
        let served = try await second.fetchQuery(["user", 42]) {
            upstream.record()
            return Profile(id: 42, name: "not from upstream")
        }

        #expect(fetched == Profile(id: 42, name: "Ada"))
        #expect(served == fetched)
        #expect(upstream.count == 1)
    }

    @Test func aRowOfAnotherTypeIsAMissForEveryInstanceReportedWithItsTypesAndReplaced() async throws {
        let table = TestServer.uniqueTable()
        let config = QueryCacheConfig(usagePolicy: .useInsteadOfFetching)
        // What an instance of the previous deploy saved: a String where this one reads a Profile.
        try await TestServer.cache(table: table).save("Ada, as an older type", for: ["user", 7])
        let clients = try (0..<3).map { _ in QueryClient(cache: try TestServer.cache(table: table), cacheConfig: config)
        }
        let logs = clients.map { EventLog($0.events) }
        let upstream = UpstreamCalls()
        for client in clients {
            let profile = try await client.fetchQuery(["user", 7]) {
                upstream.record()
                return Profile(id: 7, name: "Ada")
            }
            #expect(profile == Profile(id: 7, name: "Ada"))
            await client.flush()
        }
        // The first instance missed and fetched; its value replaced the row, which the others read.
        #expect(upstream.count == 1)
        let reported = await logs[0].first { event in
            guard case .persistenceFailed(["user", 7], let error) = event,
                case .undecodableValue(_, "String", let expected, _) = error as? CacheError
            else { return false }
            return expected.contains("Profile")
        }
        #expect(reported != nil)
        #expect(try await TestServer.cache(table: table).get(Profile.self, for: ["user", 7])?.value.name == "Ada")
    }
}

/// How many times an upstream was called.
final class UpstreamCalls: Sendable {
    private let calls = NIOLockedValueBox(0)

    /// Counts a call; returns the count so far.
    @discardableResult
    func record() -> Int {
        calls.withLockedValue { calls in
            calls += 1
            return calls
        }
    }

    var count: Int { calls.withLockedValue { $0 } }
}
