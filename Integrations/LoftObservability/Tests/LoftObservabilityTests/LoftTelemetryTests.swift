import Foundation
import InMemoryLogging
import InMemoryTracing
import Loft
import LoftTesting
import Logging
import MetricsTestKit
import Testing
import Tracing

@testable import LoftObservability

/// Telemetry read off a client on virtual time, into the three libraries' in-memory backends: every span
/// name and attribute, metric name and dimension, and log line the README lists.
@Suite(.timeLimit(.minutes(1))) struct LoftTelemetryTests {
    struct Unreachable: Error {}

    let harness = TestQueryClient()
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()
    let logs = InMemoryLogHandler()

    func attach(_ keyLabel: LoftTelemetry.KeyLabel = .firstPart) -> LoftTelemetry {
        var logger = Logger(label: "test") { [logs] _ in logs }
        logger.logLevel = .trace
        return LoftTelemetry(
            client: harness.client,
            options: LoftTelemetry.Options(keyLabel: keyLabel, logger: logger, metrics: metrics, tracer: tracer))
    }

    func span(_ name: String) throws -> FinishedInMemorySpan {
        try #require(tracer.finishedSpans.first { $0.operationName == name })
    }

    func counter(_ name: String, _ dimensions: [(String, String)]) -> Int64 {
        metrics.counterTotal(label: name, dimensions: dimensions)
    }

    @Test("a fetch is a loft.fetch span with its key's first part, reason, outcome and attempts, counted and timed")
    func fetchSpan() async throws {
        let telemetry = attach()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let query = Query(
            key: ["users", 42], behavior: .startImmediately(()), options: QueryOptions(retry: .never),
            client: harness.client, fetcher: fetcher.fetch)
        await fetcher.waitForCalls(1)
        // The scheduler's own advance: the harness's would wait for the fetch, which waits for the release.
        harness.scheduler.advance(by: .seconds(2))
        fetcher.release(returning: 7)
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 7)
        let span = try span("loft.fetch")
        #expect(span.kind == .client)
        #expect(span.attributes["loft.key"]?.toSpanAttribute() == "users")
        #expect(span.attributes["loft.reason"]?.toSpanAttribute() == "firstUse")
        #expect(span.attributes["loft.outcome"]?.toSpanAttribute() == "success")
        #expect(span.attributes["loft.attempts"]?.toSpanAttribute() == 1)
        #expect(span.attributes["loft.paused_seconds"]?.toSpanAttribute() == 0.0)
        let dimensions = [("key", "users"), ("outcome", "success"), ("reason", "firstUse")]
        #expect(counter("loft_fetches_total", dimensions) == 1)
        let timer = try metrics.expectTimer("loft_fetch_duration_seconds", dimensions)
        #expect(timer.values == [2_000_000_000])
        _ = telemetry
    }

    @Test("retries are counted and logged at debug; a fetch that fails after them is an error span and log")
    func retriesExhausted() async throws {
        let telemetry = attach()
        let fetcher = ScriptedFetcher<Void, Int>(.fail(Unreachable()), .fail(Unreachable()), .fail(Unreachable()))
        let query = Query(
            key: "feed", behavior: .startImmediately(()), options: QueryOptions(retry: .count(2)),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()  // the first attempt failed, the retry waits on the clock
        await harness.advance(by: .seconds(60))
        await harness.advance(by: .seconds(60))
        await harness.client.waitUntilIdle()
        let span = try span("loft.fetch")
        #expect(span.attributes["loft.outcome"]?.toSpanAttribute() == "failure")
        #expect(span.attributes["loft.attempts"]?.toSpanAttribute() == 3)
        #expect(span.status?.code == .error)
        #expect(span.errors.count == 1)
        #expect(counter("loft_fetch_retries_total", [("key", "feed")]) == 2)
        #expect(counter("loft_fetches_total", [("key", "feed"), ("outcome", "failure"), ("reason", "firstUse")]) == 1)
        let levels = logs.entries.map { "\($0.level) \($0.message)" }
        #expect(levels.filter { $0 == "debug fetch attempt failed; retrying" }.count == 2)
        #expect(levels.contains("error fetch failed: retries exhausted"))
        let failure = try #require(logs.entries.first { $0.level == .error })
        #expect(failure.metadata["loft.key"] == "feed" && failure.metadata["loft.attempts"] == "3")
        _ = (telemetry, query)
    }

    @Test("a fetch that fails at once is a warning; a paused fetch counts its pause and its paused time")
    func pausedAndFailedOnce() async throws {
        let telemetry = attach()
        harness.setOnline(false)
        let fetcher = ScriptedFetcher<Void, Int>(.fail(Unreachable()))
        let query = Query(
            key: "feed", behavior: .startImmediately(()), options: QueryOptions(retry: .never),
            client: harness.client, fetcher: fetcher.fetch)
        // The fetch's task reports its pause: the clock moves once it has.
        await harness.until { counter("loft_fetch_pauses_total", [("key", "feed")]) == 1 }
        await harness.advance(by: .seconds(5))
        harness.setOnline(true)
        await harness.client.waitUntilIdle()
        let span = try span("loft.fetch")
        #expect(span.attributes["loft.paused_seconds"]?.toSpanAttribute() == 5.0)
        #expect(counter("loft_fetch_pauses_total", [("key", "feed")]) == 1)
        #expect(logs.entries.map { "\($0.level) \($0.message)" }.contains("warning fetch failed"))
        _ = (telemetry, query)
    }

    @Test("reads are hits or misses; the full key is named when asked")
    func hitsAndMisses() async throws {
        let telemetry = attach(.fullKey)
        _ = try await harness.client.fetchQuery(["users", 42], staleTime: .seconds(30)) { 1 }
        _ = try await harness.client.fetchQuery(["users", 42], staleTime: .seconds(30)) { 2 }
        #expect(counter("loft_cache_reads_total", [("key", "users/42"), ("result", "miss")]) == 1)
        #expect(counter("loft_cache_reads_total", [("key", "users/42"), ("result", "hit")]) == 1)
        _ = telemetry
    }

    @Test("saves, restores and persistence failures are counted; a failure is an error log line")
    func persistence() async throws {
        let memory = InMemoryQueryCache()
        var logger = Logger(label: "test") { [logs] _ in logs }
        logger.logLevel = .trace
        let options = LoftTelemetry.Options(logger: logger, metrics: metrics, tracer: tracer)
        let first = TestQueryClient(cache: memory)
        let firstTelemetry = LoftTelemetry(client: first.client, options: options)
        first.client.setQueryData(1, for: ["n", 1])
        first.client.setQueryData(Unencodable(), for: ["bad", 1])
        await first.client.flush()
        #expect(counter("loft_persistence_saves_total", [("key", "n")]) == 1)
        #expect(counter("loft_persistence_failures_total", [("key", "bad")]) == 1)
        #expect(logs.entries.map { "\($0.level) \($0.message)" } == ["error persistence failed"])
        #expect(logs.entries.first?.metadata["loft.key"] == "bad")
        // Another client on the same cache shows the saved value at once.
        let second = TestQueryClient(cache: memory, cacheConfig: QueryCacheConfig(usagePolicy: .useAndThenFetch))
        let secondTelemetry = LoftTelemetry(client: second.client, options: options)
        let query = Query<Void, Int>(
            key: ["n", 1], behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: second.client
        ) { 2 }
        await second.client.waitUntilIdle()
        #expect(counter("loft_persistence_restores_total", [("key", "n")]) == 1)
        _ = (firstTelemetry, secondTelemetry, query)
    }

    @Test("entries are a gauge from the moment of attaching; collections are counted")
    func entriesAndCollections() async throws {
        harness.client.setQueryData(1, for: "before")
        let telemetry = attach()
        #expect(try metrics.expectGauge("loft_entries").lastValue == 1)
        do {
            let query = Query<Void, Int>(
                key: ["users", 1], options: QueryOptions(gcTime: .duration(.seconds(5)), retry: .never),
                client: harness.client
            ) { 1 }
            _ = query
        }
        #expect(try metrics.expectGauge("loft_entries").lastValue == 2)
        await harness.advance(by: .seconds(6))
        #expect(counter("loft_gc_collections_total", [("key", "users")]) == 1)
        #expect(try metrics.expectGauge("loft_entries").lastValue == 1)
        _ = telemetry
    }

    @Test("evictions are counted by reason; a budget the entries in use exceed is a warning")
    func evictions() async throws {
        let budgeted = TestQueryClient(memoryBudget: .entries(1))
        var logger = Logger(label: "test") { [logs] _ in logs }
        logger.logLevel = .trace
        let telemetry = LoftTelemetry(
            client: budgeted.client, options: LoftTelemetry.Options(logger: logger, metrics: metrics, tracer: tracer))
        _ = try await budgeted.client.fetchQuery(["items", 1]) { 1 }
        _ = try await budgeted.client.fetchQuery(["items", 2]) { 2 }
        budgeted.client.trim(to: 0)
        #expect(counter("loft_evictions_total", [("key", "items"), ("reason", "budget")]) == 1)
        #expect(counter("loft_evictions_total", [("key", "items"), ("reason", "trim")]) == 1)
        let observed = (0..<2).map { index in
            Query<Void, Int>(key: ["seen", index], behavior: .startImmediately(()), client: budgeted.client) { index }
        }
        await budgeted.until { observed.allSatisfy { $0.state.value != nil } }
        let warning = try #require(logs.entries.first { $0.level == .warning })
        #expect(warning.message == "the entries in use exceed the memory budget; nothing more can be evicted")
        #expect(warning.metadata["loft.limit"] == "1")
        _ = telemetry
    }

    @Test("host signals: memory pressure is counted by level and its evictions by reason; a failed source is logged")
    func hostSignals() async throws {
        let telemetry = attach()
        for index in 0..<4 { harness.client.setQueryData(index, for: ["items", index]) }
        let host = ScriptedHostSignals(name: "memory pressure")
        harness.client.follow(host.signals)
        host.send(.memoryPressure(.critical))
        host.send(.failure(HostSignalError("poll", code: 4)))
        harness.client.stopFollowing()
        #expect(counter("loft_memory_pressure_total", [("key", "host"), ("level", "critical")]) == 1)
        #expect(counter("loft_evictions_total", [("key", "items"), ("reason", "memoryPressure")]) == 4)
        let messages = logs.entries.map { "\($0.level) \($0.message)" }
        #expect(messages.contains("warning memory pressure: entries nobody observes were dropped"))
        #expect(messages.contains("error a host signal source failed"))
        _ = telemetry
    }

    @Test("a mutation is a loft.mutation span, counted and timed by outcome; a failure is logged")
    func mutations() async throws {
        let telemetry = attach()
        let add = Mutation<String, Int>(
            client: harness.client, options: MutationOptions(scope: "todos", mutationKey: ["todos", "add"])
        ) { request in
            guard request != "fail" else { throw Unreachable() }
            return request.count
        }
        _ = try await add.mutate("milk")
        _ = try? await add.mutate("fail")
        await harness.client.waitUntilIdle()
        let spans = tracer.finishedSpans.filter { $0.operationName == "loft.mutation" }
        #expect(spans.map { $0.attributes["loft.outcome"]?.toSpanAttribute() } == ["success", "failure"])
        #expect(spans.allSatisfy { $0.attributes["loft.key"]?.toSpanAttribute() == "todos" })
        #expect(spans.allSatisfy { $0.attributes["loft.scope"]?.toSpanAttribute() == "todos" })
        #expect(spans.last?.status?.code == .error)
        #expect(counter("loft_mutations_total", [("key", "todos"), ("outcome", "success")]) == 1)
        #expect(counter("loft_mutations_total", [("key", "todos"), ("outcome", "failure")]) == 1)
        #expect(
            try metrics.expectTimer("loft_mutation_duration_seconds", [("key", "todos"), ("outcome", "success")]).values
                .count == 1)
        #expect(logs.entries.contains { $0.level == .warning && $0.message == "mutation failed" })
        _ = telemetry
    }

    @Test("another source's events are logged at the level given, with the source in the metadata")
    func otherSource() {
        let telemetry = attach()
        let link = PassthroughSubject<String, Never>()
        telemetry.log(link, source: "fleet") { $0.hasPrefix("lost") ? .warning : .debug }
        link.send("listening")
        link.send("lost: the connection closed")
        #expect(
            logs.entries.map { "\($0.level) \($0.message)" } == [
                "debug listening", "warning lost: the connection closed",
            ])
        #expect(logs.entries.allSatisfy { $0.metadata["loft.source"] == "fleet" })
    }

    @Test("after cancel() nothing more is recorded, and a span still open ends as detached")
    func cancelDetaches() async throws {
        let telemetry = attach()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let query = Query(
            key: "n", behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client,
            fetcher: fetcher.fetch)
        await fetcher.waitForCalls(1)
        telemetry.cancel()
        #expect(try span("loft.fetch").attributes["loft.outcome"]?.toSpanAttribute() == "detached")
        fetcher.release(returning: 1)
        await harness.client.waitUntilIdle()
        #expect(metrics.counters(label: "loft_fetches_total").isEmpty)
        _ = query
    }
}

/// A value no persistent cache can encode (its `encode` throws).
struct Unencodable: Codable, Sendable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "never encodes"))
    }
}
