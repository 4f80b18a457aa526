import LoftTesting
import Testing

@testable import Loft

/// Point 5 of the day-one API: which calls retry, and the one-line way for a command-line tool to fail fast.
@Suite struct FailFastTests {
    struct HTTPError: HTTPStatusError {
        let httpStatusCode: Int?
    }

    @Test(
        "value(for:) retries by default (three times, on the client's clock); fetchQuery does not",
        .timeLimit(.minutes(1)))
    func whoRetries() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .default))
        let fetcher = ScriptedFetcher<Void, Int>(.fail(HTTPError(httpStatusCode: 503)))
        await #expect(throws: HTTPError.self) {
            try await harness.client.fetchQuery("once") { try await fetcher.fetch(()) }
        }
        #expect(fetcher.callCount == 1)
        let query = Query(key: "retried", client: harness.client, fetcher: fetcher.fetch)
        let value = Task { try await query.value() }
        for (call, delay) in [(2, 1), (3, 2), (4, 4)] {
            await fetcher.waitForCalls(call)
            await harness.client.waitUntilIdle()  // the retry's timer is set
            await harness.advance(by: .seconds(delay))
        }
        await #expect(throws: HTTPError.self) { try await value.value }
        #expect(fetcher.callCount == 5, "one call of fetchQuery, then four attempts of value()")
    }

    /// A query of a missing resource (404) on `harness`: its `value()` throws after exactly one call.
    private func expectOneCallForNotFound(_ harness: TestQueryClient) async {
        let fetcher = ScriptedFetcher<Void, Int>(.fail(HTTPError(httpStatusCode: 404)))
        let query = Query(key: "missing", client: harness.client, fetcher: fetcher.fetch)
        await #expect(throws: HTTPError.self) { try await query.value() }
        #expect(fetcher.callCount == 1)
    }

    @Test("a command-line tool fails fast: retry .never in the client's defaults makes value() throw at once")
    func failFast() async throws {
        await expectOneCallForNotFound(TestQueryClient(defaults: QueryDefaults(retry: .never)))
    }

    @Test(
        "skippingClientErrors retries no 4xx, but retries a failure without a status (no response came)",
        .timeLimit(.minutes(1)))
    func skippingClientErrors() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .skippingClientErrors))
        await expectOneCallForNotFound(harness)
        let offline = ScriptedFetcher<Void, Int>(.fail(HTTPError(httpStatusCode: nil)), .answer(1))
        let retried = Query(key: "flaky", client: harness.client, fetcher: offline.fetch)
        let value = Task { try await retried.value() }
        await offline.waitForCalls(1)
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(1))
        #expect(try await value.value == 1)
    }
}
