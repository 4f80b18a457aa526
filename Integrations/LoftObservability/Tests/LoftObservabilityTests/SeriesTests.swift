import Loft
import LoftTesting
import Metrics
import MetricsTestKit
import Synchronization
import Testing

@testable import LoftObservability

/// Each metric series is made by the backend once and kept: a cache read with telemetry on asks the backend
/// nothing (its `makeCounter` locks, sorts and looks up the labels).
@Suite(.timeLimit(.minutes(1))) struct SeriesTests {
    /// A backend that counts what it is asked to make, and makes it with `MetricsTestKit`'s.
    final class CountingMetrics: MetricsFactory {
        let metrics = TestMetrics()
        let counters = Atomic(0)
        let timers = Atomic(0)

        func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
            counters.add(1, ordering: .relaxed)
            return metrics.makeCounter(label: label, dimensions: dimensions)
        }

        func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler
        {
            metrics.makeFloatingPointCounter(label: label, dimensions: dimensions)
        }

        func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
            metrics.makeMeter(label: label, dimensions: dimensions)
        }

        func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
            metrics.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
        }

        func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
            timers.add(1, ordering: .relaxed)
            return metrics.makeTimer(label: label, dimensions: dimensions)
        }

        func destroyCounter(_ handler: any CounterHandler) { metrics.destroyCounter(handler) }
        func destroyMeter(_ handler: any MeterHandler) { metrics.destroyMeter(handler) }
        func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
            metrics.destroyFloatingPointCounter(handler)
        }
        func destroyRecorder(_ handler: any RecorderHandler) { metrics.destroyRecorder(handler) }
        func destroyTimer(_ handler: any TimerHandler) { metrics.destroyTimer(handler) }
    }

    @Test("reads of a key count into the one counter made on the first; another key or result is a series of its own")
    func readsShareTheirSeries() async throws {
        let harness = TestQueryClient()
        let backend = CountingMetrics()
        let telemetry = LoftTelemetry(client: harness.client, options: LoftTelemetry.Options(metrics: backend))
        for _ in 0..<5 { _ = try await harness.client.fetchQuery(["users", 1], staleTime: .seconds(30)) { 1 } }
        #expect(backend.metrics.counterTotal(label: "loft_cache_reads_total", dimensions: [("result", "hit")]) == 4)
        #expect(backend.metrics.counterTotal(label: "loft_cache_reads_total", dimensions: [("result", "miss")]) == 1)
        let afterOneKey = backend.counters.load(ordering: .relaxed)
        // A miss, a hit and the fetch of the first key: three series, each made once.
        #expect(afterOneKey == 3)
        _ = try await harness.client.fetchQuery(["users", 2], staleTime: .seconds(30)) { 2 }
        _ = try await harness.client.fetchQuery(["users", 2], staleTime: .seconds(30)) { 2 }
        // The same first part: the same series (the default label), made by nobody again.
        #expect(backend.counters.load(ordering: .relaxed) == afterOneKey)
        _ = try await harness.client.fetchQuery(["teams", 1], staleTime: .seconds(30)) { 3 }
        #expect(backend.counters.load(ordering: .relaxed) == afterOneKey + 2)
        #expect(backend.metrics.counterTotal(label: "loft_cache_reads_total", dimensions: [("key", "users")]) == 7)
        _ = telemetry
    }

    @Test("a fetch's duration goes to the one timer of its key, reason and outcome")
    func fetchesShareTheirTimer() async throws {
        let harness = TestQueryClient()
        let backend = CountingMetrics()
        let telemetry = LoftTelemetry(client: harness.client, options: LoftTelemetry.Options(metrics: backend))
        for id in 0..<3 { _ = try await harness.client.fetchQuery(["users", id]) { id } }
        #expect(backend.timers.load(ordering: .relaxed) == 1)
        let timers = backend.metrics.timers(label: "loft_fetch_duration_seconds")
        #expect(timers.count == 1)
        #expect(timers.first?.values.count == 3)
        _ = telemetry
    }
}
