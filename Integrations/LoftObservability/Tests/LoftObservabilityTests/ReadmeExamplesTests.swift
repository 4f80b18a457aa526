import InMemoryLogging
import InMemoryTracing
import Loft
import LoftObservability
import LoftTesting
import Logging
import MetricsTestKit
import Testing

/// The README's examples, compiled and run: the check in CI fails when a ```swift block of the README is not,
/// line for line, in this file.
@Suite struct ReadmeExamplesTests {
    @Test("the README's use: attached, configured, another source logged, cancelled")
    func use() async throws {
        let client = QueryClient()
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "readme") { _ in logs }
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let link = FleetLinkStandIn()

        do {
            let telemetry = LoftTelemetry(client: client)
            // ... and, to stop before the client goes away:
            telemetry.cancel()
        }

        let observed = LoftTelemetry(
            client: client,
            options: LoftTelemetry.Options(
                keyLabel: .fullKey, logger: logger, metrics: metrics, tracer: tracer, prefix: "app_loft")
        )

        do {
            let telemetry = observed
            telemetry.log(link.events, source: "fleet") { event in
                if case .lost = event { .warning } else { .debug }
            }
        }
        _ = try await client.fetchQuery(["users", 42]) { 1 }
        await client.waitUntilIdle()  // the fetch's end is sent after its callers have the value
        link.events.send(.lost)
        #expect(metrics.counterTotal(label: "app_loft_fetches_total") == 1)
        #expect(metrics.counters(label: "app_loft_fetches_total").first?.dimensions.first?.1 == "users/42")
        #expect(logs.entries.map(\.level) == [.warning])
    }
}

/// Stands for LoftPostgres's `PostgresFleetLink` (its `events` and one of its event's cases).
struct FleetLinkStandIn {
    enum Event: Sendable, CustomStringConvertible {
        case listening, lost
        var description: String { self == .lost ? "lost" : "listening" }
    }
    let events = PassthroughSubject<Event, Never>()
}
