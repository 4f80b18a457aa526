import LoftTesting
import Testing

@testable import Loft

/// The TanStack Query v5 rules the entry's state machine decides, one test each, in virtual time.
@Suite struct EntryRulesTests {
    @Test("rule 1: an entry written only by setQueryData or hydrate is collected gcTime after it was written")
    func unobservedEntriesAreCollected() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(60)))
        harness.client.setQueryData(1, for: "written")
        let other = QueryClient()
        other.setQueryData(2, for: "hydrated")
        harness.client.hydrate(other.dehydrate())
        await harness.advance(by: .milliseconds(59_999))
        #expect(harness.client.existingEntry(for: "written") != nil)
        #expect(harness.client.existingEntry(for: "hydrated") != nil)
        await harness.advance(by: .milliseconds(1))
        #expect(harness.client.existingEntry(for: "written") == nil)
        #expect(harness.client.existingEntry(for: "hydrated") == nil)
        #expect(harness.scheduler.pendingCount == 0)
    }

    @Test("rule 2: the last observer leaving while a retry waits stops the retries; one coming back continues")
    func retriesStopWhenUnobserved() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .count(3)))
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.offline))
        var query: Query<Void, Int>? = Query(
            key: "r", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        query = nil
        await harness.advance(by: .seconds(1))
        #expect(fetcher.callCount == 1)  // no further attempt
        let snapshot = try? harness.client.snapshot(for: "r", as: Int.self)
        #expect(snapshot?.status == .error)
        #expect(snapshot?.fetchStatus == .idle)

        let second = ScriptedFetcher<Void, Int>(.fail(APIError.offline), .answer(7))
        query = Query(key: "s", behavior: .startImmediately(()), client: harness.client, fetcher: second.fetch)
        await harness.client.waitUntilIdle()
        query = nil
        let consumer = Query<Void, Int>.Consumer(key: "s", client: harness.client)  // back before the retry
        await harness.advance(by: .seconds(1))
        #expect(second.callCount == 2)
        #expect(consumer.state.value == 7)
        #expect(query == nil)
    }

    @Test("rule 3: fetchQuery, prefetchQuery and ensureQueryData do not retry unless their retry says so")
    func imperativeFetchesDoNotRetry() async throws {
        let harness = TestQueryClient()  // the client's default retries 3 times
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.offline))
        await #expect(throws: APIError.offline) {
            try await harness.client.fetchQuery("a") { try await fetcher.fetch(()) }
        }
        await harness.client.prefetchQuery("b") { try await fetcher.fetch(()) }
        await #expect(throws: APIError.offline) {
            try await harness.client.ensureQueryData("c") { try await fetcher.fetch(()) }
        }
        #expect(fetcher.callCount == 3)
        let retried = ScriptedFetcher<Void, Int>(.fail(APIError.offline), .answer(1))
        async let value = harness.client.fetchQuery("d", retry: .count(1)) { try await retried.fetch(()) }
        await retried.waitForCalls(1)
        await harness.client.waitUntilIdle()  // returns once the retry's timer is set, never before
        await harness.advance(by: .seconds(1))
        #expect(try await value == 1)
    }

    @Test("rule 4: a failed refetch marks the entry invalidated, so the next trigger refetches whatever staleTime")
    func failureInvalidates() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(600), retry: .never))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .fail(APIError.offline), .answer(3))
        let query = Query(key: "f", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(query.snapshot.isStale)
        #expect(query.state.value == 1)
        harness.client.setFocused(false)
        harness.client.setFocused(true)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 3)
        #expect(query.state.value == 3)
    }

    @Test("rule 5: an errored query with no data that refetches is pending with no error, and shows loading")
    func erroredRefetchIsPending() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .never))
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.offline), .hang())
        let query = Query(key: "e", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(query.snapshot.status == .error)
        query.refetch()
        await fetcher.waitForCalls(2)
        #expect(query.snapshot.status == .pending)
        #expect(query.snapshot.error == nil)
        #expect(query.state.isLoading)
        fetcher.release(returning: 2)
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 2)
    }

    @Test("rule 6: a refetch returning an equal value runs select no more and notifies no one of new data")
    func structuralSharingSparesSelect() async throws {
        let harness = TestQueryClient()
        let selections = Counter()
        let query = Query<Void, [Int]>(
            key: "s", behavior: .startImmediately(()),
            options: QueryOptions(select: { values in
                selections.increment()
                return values.sorted()
            }), client: harness.client
        ) { [3, 1, 2] }
        let values = PublisherRecorder(query.valuePublisher)
        await harness.client.waitUntilIdle()
        #expect(query.state.value == [1, 2, 3])
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(query.state.value == [1, 2, 3])
        #expect(selections.value == 1)
        #expect(values.values == [[1, 2, 3]])
    }

    @Test("rule 7: placeholder data goes through select and shows as success; when the fetch fails, the error shows")
    func placeholderData() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .never))
        let fetcher = ScriptedFetcher<Void, [Int]>(.hang())
        let query = Query<Void, [Int]>(
            key: "p", behavior: .startImmediately(()),
            options: QueryOptions(select: { $0.map { $0 * 10 } }, placeholderData: .value([1, 2])),
            client: harness.client, fetcher: fetcher.fetch)
        await fetcher.waitForCalls(1)
        #expect(query.snapshot.data == [10, 20])
        #expect(query.snapshot.status == .success)
        #expect(query.snapshot.isPlaceholderData)
        #expect(try harness.client.getQueryData("p", as: [Int].self) == nil)  // never written to the cache
        fetcher.release(with: .failure(APIError.offline))
        await harness.client.waitUntilIdle()
        #expect(query.snapshot.data == nil)
        #expect(!query.snapshot.isPlaceholderData)
        #expect(query.snapshot.status == .error)
        #expect(query.state.error != nil)
    }

    @Test("rule 8: resetQueries puts an entry whose query has initialData back to it")
    func resetToInitialData() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        let query = Query<Void, Int>(
            key: "i", options: QueryOptions(initialData: 5), client: harness.client
        ) { 9 }
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 9)
        query.setEnabled(false)
        harness.client.resetQueries("i")
        #expect(query.state.value == 5)
        harness.client.setQueryData(1, for: "plain")
        harness.client.resetQueries("plain")
        #expect(try harness.client.getQueryData("plain", as: Int.self) == nil)
    }

    @Test("rule 9: a disabled query is never refetched by invalidateQueries(.all) nor refetchQueries")
    func disabledIsNeverBulkRefetched() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        let query = Query(
            key: "d", options: QueryOptions(enabled: false), client: harness.client, fetcher: fetcher.fetch)
        query.refetch()  // explicit: fetches even when disabled
        await harness.client.waitUntilIdle()
        await harness.client.invalidateQueries("d", refetchType: .all).settled()
        await harness.client.refetchQueries("d").settled()
        await harness.client.invalidateQueries("d", refetchType: .inactive).settled()
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
    }

    @Test("rule 10: after removeQueries the next fetch makes a new entry (added again), and observers follow it")
    func removedEntryIsGone() async throws {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(key: "x", behavior: .startImmediately(()), client: harness.client) { 1 }
        let consumer = Query<Void, Int>.Consumer(key: "x", client: harness.client)
        await harness.client.waitUntilIdle()
        harness.client.removeQueries("x")
        #expect(harness.client.existingEntry(for: "x") == nil)
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(harness.client.existingEntry(for: "x") != nil)
        #expect(try harness.client.getQueryData("x", as: Int.self) == 1)
        let added = harness.events.values.filter { if case .added("x") = $0 { true } else { false } }
        #expect(added.count == 2)
        #expect(harness.observerCount("x") == 2)
        harness.client.setQueryData(2, for: "x")
        #expect(consumer.state.value == 2)
    }

    @Test("rule 11: data written during a fetch stays when that fetch is cancelled")
    func cancelKeepsWrittenData() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let query = Query(key: "c", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await fetcher.waitForCalls(1)
        harness.client.setQueryData(4, for: "c")
        query.cancel()
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 4)
        #expect(query.snapshot.fetchStatus == .idle)
    }

    @Test("rule 12: observers hear the moment data turns stale, from a timer on the client's scheduler")
    func stalenessNotifies() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(30)))
        let query = Query<Void, Int>(key: "t", behavior: .startImmediately(()), client: harness.client) { 1 }
        let staleness = PublisherRecorder(query.snapshotPublisher.map(\.isStale))
        await harness.client.waitUntilIdle()
        #expect(staleness.values.last == false)
        await harness.advance(by: .milliseconds(29_999))
        #expect(staleness.values.last == false)
        await harness.advance(by: .milliseconds(1))
        #expect(staleness.values.last == true)
        #expect(harness.scheduler.pendingCount == 0)
    }

    @Test("rule 12: the staleness timer serves every observer's window, and follows the observers that remain")
    func stalenessFollowsObservers() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: "w")
        let short = Query<Void, Int>.Consumer(
            key: "w", options: QueryOptions(staleTime: .seconds(10)), client: harness.client)
        var long: Query<Void, Int>.Consumer? = Query<Void, Int>.Consumer(
            key: "w", options: QueryOptions(staleTime: .seconds(60)), client: harness.client)
        let versions = VersionRecorder(try #require(harness.client.existingEntry(for: "w")))
        await harness.advance(by: .seconds(10))
        #expect(versions.values.count == 1)  // the short window ended
        long = nil  // its window (at 60 s) no longer needs a timer
        await harness.advance(by: .seconds(60))
        #expect(versions.values.count == 1)  // no notification at 60 s
        _ = (short, long)
    }

    @Test("rule 13: a disabled query is not stale, with or without data")
    func disabledIsNotStale() async throws {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(key: "n", options: QueryOptions(enabled: false), client: harness.client) { 1 }
        #expect(query.snapshot.isStale == false)
        #expect(query.snapshot.status == .pending)
        #expect(query.snapshot.fetchStatus == .idle)
        query.setEnabled(true)
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 1)
        #expect(query.snapshot.isStale)  // enabled, staleTime 0
    }

    @Test("rule 14: a filter's dictionary part covers a key's dictionary part with the same pairs and more")
    func dictionaryFilters() async throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: ["todos", ["status": "done", "page": 1]])
        harness.client.setQueryData(2, for: ["todos", ["status": "done", "page": 2]])
        harness.client.setQueryData(3, for: ["todos", ["status": "open", "page": 1]])
        harness.client.setQueryData(4, for: ["todos", "all"])
        harness.client.removeQueries(["todos", ["status": "done"]])
        #expect(harness.client.existingEntry(for: ["todos", ["status": "done", "page": 1]]) == nil)
        #expect(harness.client.existingEntry(for: ["todos", ["status": "done", "page": 2]]) == nil)
        #expect(harness.client.existingEntry(for: ["todos", ["status": "open", "page": 1]]) != nil)
        #expect(harness.client.existingEntry(for: ["todos", "all"]) != nil)
        #expect(QueryKey("todos", ["status": "done", "page": 1]).hasPrefix(["todos", ["status": "done"]]))
        #expect(!QueryKey("todos", ["status": "done"]).hasPrefix(["todos", ["status": "done", "page": 1]]))
        harness.client.removeQueries(["todos", ["status": "open", "page": 1]], exact: true)
        #expect(harness.client.existingEntry(for: ["todos", ["status": "open", "page": 1]]) == nil)
    }

    @Test("rule 15: refetchQueries refetches every matching enabled entry, active or not, by default")
    func refetchQueriesIncludesInactive() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        await harness.client.prefetchQuery(["list", 1]) { try await fetcher.fetch(()) }
        let active = Query(
            key: ["list", 2], behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.client.refetchQueries("list").settled()
        #expect(fetcher.callCount == 4)
        await harness.client.refetchQueries("list", filter: .active).settled()
        #expect(fetcher.callCount == 5)
        #expect(harness.fetchReasons(for: ["list", 1]) == [.prefetch, .manual])
        _ = active
    }
}

/// A thread-safe count, for closures that tests watch.
final class Counter: Sendable {
    private let count = Locked(0)

    var value: Int { count.withLock { $0 } }

    func increment() {
        count.withLock { $0 += 1 }
    }
}
