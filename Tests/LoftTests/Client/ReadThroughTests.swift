import LoftTesting
import TestSupport
import Testing

@testable import Loft

/// `fetchQuery` as a request handler's read-through call: fresh data answers from the entry without a fetch or a
/// wait, stale or missing data goes through the entry's machine, and `gcTime` is given per call.
@Suite(.timeLimit(.minutes(1))) struct ReadThroughTests {
    func descriptions(_ harness: TestQueryClient) -> [String] {
        harness.events.values.map(\.description)
    }

    @Test("fresh data answers a fetchQuery from the cache: served from the cache, no fetch started")
    func freshHit() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2))
        #expect(try await harness.client.fetchQuery("k", staleTime: .seconds(10)) { try await fetcher.fetch(()) } == 1)
        await harness.advance(by: .seconds(5))
        let before = harness.events.values.count
        #expect(try await harness.client.fetchQuery("k", staleTime: .seconds(10)) { try await fetcher.fetch(()) } == 1)
        #expect(Array(descriptions(harness).dropFirst(before)) == ["served k from the cache"])
        #expect(fetcher.callCount == 1)
    }

    @Test("stale, invalidated or missing data goes through the machine and fetches")
    func staleFetches() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2), .answer(3))
        _ = try await harness.client.fetchQuery("k", staleTime: .seconds(10)) { try await fetcher.fetch(()) }
        await harness.advance(by: .seconds(10))
        #expect(try await harness.client.fetchQuery("k", staleTime: .seconds(10)) { try await fetcher.fetch(()) } == 2)
        _ = harness.client.invalidateQueries("k")
        #expect(try await harness.client.fetchQuery("k", staleTime: .infinity) { try await fetcher.fetch(()) } == 3)
        #expect(harness.fetchReasons(for: "k") == [.firstUse, .manual, .manual])
    }

    @Test("a read that joins a fetch in flight, or that the cache answers, makes no fetcher; one that fetches does")
    func fetchersMadeOnlyToFetch() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let first = Task { try await harness.client.fetchQuery("k") { try await fetcher.fetch(()) } }
        await fetcher.waitForCalls(1)
        let entry = try #require(harness.client.existingEntry(for: "k"))
        let made = Counter()
        let read: @Sendable (StaleTime, Int) async throws -> Int? = { staleTime, value in
            try await entry.readValue(FetchCall(reason: .manual), .ifStale(staleTime)) {
                made.increment()
                return FetchRequest.fetcher({ value }, retry: .never, networkMode: .online, structuralSharing: true)
            } as? Int
        }
        let joined = Task { try await read(.zero, 0) }
        await harness.until { entry.storage.withLock { $0.machine.fetchWaiters.count } == 2 }
        fetcher.release(returning: 4)
        #expect(try await joined.value == 4)
        #expect(try await first.value == 4)
        #expect(try await read(.infinity, 0) == 4)
        #expect(made.value == 0, "neither the joining read nor the fresh one made a fetcher")
        #expect(try await read(.zero, 5) == 5)
        #expect(made.value == 1)
    }

    @Test("a caller cancelled before it reaches a fetch in flight gets CancellationError; the fetch goes on")
    func cancelledCallerLeaves() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let first = Task { try await harness.client.fetchQuery("k") { try await fetcher.fetch(()) } }
        await fetcher.waitForCalls(1)
        let outcome = Locked<Result<Int, any Error>?>(nil)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                let value = try await harness.client.fetchQuery("k") { 0 }
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        // Answered while the fetch still runs (a caller that stayed would wait for it: `until` fails, not hangs).
        await harness.until { outcome.withLock { $0 } != nil }
        #expect(throws: CancellationError.self) { try outcome.withLock { $0 }?.get() }
        fetcher.release(returning: 4)
        await cancelled.value
        #expect(try await first.value == 4)
        #expect(fetcher.callCount == 1)
    }

    @Test("ensureQueryData answers any data from the cache, whatever its age, without a fetch")
    func ensureAnswersAnyAge() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(5, for: "k")
        await harness.advance(by: .seconds(200))  // stale for any staleTime up to 200 s, not yet collected
        let fetcher = ScriptedFetcher<Void, Int>(.answer(9))
        #expect(try await harness.client.ensureQueryData("k") { try await fetcher.fetch(()) } == 5)
        #expect(fetcher.callCount == 0)
    }

    @Test("a fresh hit of the wrong type is a typed error, as through the machine")
    func freshHitWrongType() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData("text", for: "k")
        await #expect(throws: QueryError.self) {
            _ = try await harness.client.fetchQuery("k", staleTime: .infinity) { 1 }
        }
    }

    @Test("fetchQuery(gcTime:) collects the unused entry that long after its fetch, not the defaults' 300 s")
    func gcTimePerCall() async throws {
        let harness = TestQueryClient()
        _ = try await harness.client.fetchQuery("k", gcTime: .seconds(10)) { 1 }
        await harness.advance(by: .seconds(9))
        #expect(try harness.client.getQueryData("k", as: Int.self) == 1)
        await harness.advance(by: .seconds(1))
        #expect(try harness.client.getQueryData("k", as: Int.self) == nil)
        #expect(descriptions(harness).contains("collected k"))
    }

    @Test("the longest gcTime a caller gave wins; a fresh hit with a longer one goes through the machine to keep it")
    func longestGCTimeWins() async throws {
        let harness = TestQueryClient()
        _ = try await harness.client.fetchQuery("k", staleTime: .infinity, gcTime: .seconds(10)) { 1 }
        _ = try await harness.client.fetchQuery("k", staleTime: .infinity, gcTime: .seconds(60)) { 2 }
        _ = try await harness.client.fetchQuery("k", staleTime: .infinity, gcTime: .seconds(5)) { 3 }
        await harness.advance(by: .seconds(30))
        #expect(try harness.client.getQueryData("k", as: Int.self) == 1)
        await harness.advance(by: .seconds(30))
        #expect(try harness.client.getQueryData("k", as: Int.self) == nil)
    }

    @Test("one Mutation serves concurrent calls: each caller gets its own call's result")
    func sharedMutationConcurrentCalls() async throws {
        let harness = TestQueryClient()
        let mutation = Mutation<Int, Int>(client: harness.client) { request in request * 2 }
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for request in 0..<50 { group.addTask { (request, try await mutation.mutate(request)) } }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { request, response in response == request * 2 })
    }

    @Test("ensureQueryData with revalidateIfStale: stale data answers at once, one refetch runs behind it")
    func revalidateIfStale() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(10)))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .hang(), .answer(3))
        let read = {
            try await harness.client.ensureQueryData("k", revalidateIfStale: true) { try await fetcher.fetch(()) }
        }
        #expect(try await read() == 1)
        #expect(try await read() == 1)
        #expect(fetcher.callCount == 1)
        await harness.advance(by: .seconds(10))
        #expect(try await read() == 1)
        #expect(try await read() == 1)
        await fetcher.waitForCalls(2)
        #expect(harness.fetchReasons(for: "k") == [.prefetch, .prefetch])
        fetcher.release(returning: 2)
        await harness.waitUntilIdle()
        #expect(try await read() == 2)
        #expect(fetcher.callCount == 2)
    }

    @Test("with revalidateIfStale, a refetch that fails keeps the data, which goes on answering")
    func revalidateKeepsDataOnFailure() async throws {
        struct Down: Error {}
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(10)))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .fail(Down()), .answer(5))
        let read = {
            try await harness.client.ensureQueryData("k", revalidateIfStale: true) { try await fetcher.fetch(()) }
        }
        #expect(try await read() == 1)
        await harness.advance(by: .seconds(10))
        #expect(try await read() == 1)
        await harness.waitUntilIdle()
        #expect(try harness.client.snapshot(for: "k", as: Int.self).error is Down)
        #expect(try await read() == 1)
        await harness.waitUntilIdle()
        #expect(try await read() == 5)
    }

    @Test("without revalidateIfStale, ensureQueryData never refetches data it has")
    func ensureWithoutRevalidation() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(10)))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2))
        _ = try await harness.client.ensureQueryData("k") { try await fetcher.fetch(()) }
        await harness.advance(by: .seconds(60))
        #expect(try await harness.client.ensureQueryData("k") { try await fetcher.fetch(()) } == 1)
        await harness.waitUntilIdle()
        #expect(fetcher.callCount == 1)
    }
}
