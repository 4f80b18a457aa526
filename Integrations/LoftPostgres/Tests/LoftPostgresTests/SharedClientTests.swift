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
