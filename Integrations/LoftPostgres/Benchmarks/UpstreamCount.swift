import Loft
import LoftPostgres
import NIOConcurrencyHelpers

/// Upstream calls of 3 instances × 1,000 concurrent requests over 100 keys.
enum UpstreamCount {
    static func measure(url: String, table: String) async throws -> Int {
        let calls = CallCount()
        let instances = try (0..<3).map { _ in
            let cache = try PostgresQueryCache(url: url, table: table)
            return (client: QueryClient(), flight: PostgresSingleFlight(cache: cache, freshFor: .seconds(60)))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for instance in instances {
                for request in 0..<1_000 {
                    group.addTask {
                        let key = QueryKey(parts: [.string("user"), .int(request % 100)])
                        let value = try await instance.client.fetchQuery(key) {
                            try await instance.flight.value(for: key, as: Int.self) {
                                calls.add()
                                try await Task.sleep(for: .milliseconds(20))  // the upstream's latency
                                return request % 100
                            }
                        }
                        guard value == request % 100 else { fatalError("every request gets its key's value") }
                    }
                }
            }
            try await group.waitForAll()
        }
        return calls.count
    }
}

/// How many times the upstream was called.
final class CallCount: Sendable {
    private let calls = NIOLockedValueBox(0)
    func add() { calls.withLockedValue { $0 += 1 } }
    var count: Int { calls.withLockedValue { $0 } }
}
