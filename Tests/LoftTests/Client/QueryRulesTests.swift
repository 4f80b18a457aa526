import LoftTesting
import Testing

@testable import Loft

/// The rules a TanStack Query v5 user relies on that an earlier rewrite got wrong, one test each, named after
/// the rule, in virtual time.
@Suite struct QueryRulesTests {
    @Test("gcTime: the longest gcTime of the observers collects, even one shorter than the client's default")
    func observersGCTimeWins() async {
        let harness = TestQueryClient()  // the client's gcTime: 300 s
        var query: Query<Void, Int>? = Query(
            key: "short", behavior: .startImmediately(()), options: QueryOptions(gcTime: .seconds(5)),
            client: harness.client
        ) { 1 }
        await harness.client.waitUntilIdle()
        query = nil
        await harness.advance(by: .milliseconds(4_999))
        #expect(harness.client.existingEntry(for: "short") != nil)
        await harness.advance(by: .milliseconds(1))
        #expect(harness.client.existingEntry(for: "short") == nil)

        // Two observers: the longer gcTime wins.
        var first: Query<Void, Int>? = Query(
            key: "two", behavior: .startImmediately(()), options: QueryOptions(gcTime: .seconds(5)),
            client: harness.client
        ) { 1 }
        var second: Query<Void, Int>? = Query(
            key: "two", options: QueryOptions(gcTime: .seconds(20)), client: harness.client
        ) { 1 }
        await harness.client.waitUntilIdle()
        (first, second) = (nil, nil)
        await harness.advance(by: .seconds(19))
        #expect(harness.client.existingEntry(for: "two") != nil)
        await harness.advance(by: .seconds(1))
        #expect(harness.client.existingEntry(for: "two") == nil)
        #expect(query == nil && first == nil && second == nil)
    }

    @Test("gcTime: an entry nobody observed is collected after the defaults' gcTime for its key")
    func unobservedEntryTakesDefaultsGCTime() async {
        let harness = TestQueryClient()
        harness.client.setQueryDefaults(QueryDefaults(gcTime: .seconds(10)), for: "short")
        harness.client.setQueryData(1, for: ["short", 1])
        await harness.advance(by: .seconds(10))
        #expect(harness.client.existingEntry(for: ["short", 1]) == nil)
    }

    @Test("1. setQueryData whose updater returns nil creates no entry and no event")
    func nilUpdaterCreatesNothing() throws {
        let harness = TestQueryClient()
        try harness.client.setQueryData(for: "none") { (_: Int?) in nil }
        #expect(harness.client.existingEntry(for: "none") == nil)
        #expect(harness.events.values.isEmpty)
        var calls = 0
        try harness.client.setQueryData(for: "some") { (old: Int?) in
            calls += 1
            return (old ?? 0) + 1
        }
        #expect(try harness.client.getQueryData("some", as: Int.self) == 1)
        #expect(calls == 1, "the updater runs once when nobody wrote meanwhile")
    }

    @Test("2. static data: neither refetchQueries nor a trigger set to always refetches it; refetch() does")
    func staticDataIsRefetchedOnlyExplicitly() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        let query = Query(
            key: "static", behavior: .startImmediately(()),
            options: QueryOptions(
                staleTime: .static, refetchOnAppear: .always, refetchOnFocus: .always, refetchOnReconnect: .always),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.client.refetchQueries().settled()
        harness.client.setFocused(false)
        harness.client.setFocused(true)
        harness.client.setOnline(false)
        harness.client.setOnline(true)
        let appearing = Query(
            key: "static", behavior: .startImmediately(()),
            options: QueryOptions(staleTime: .static, refetchOnAppear: .always), client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(harness.fetchReasons(for: "static") == [.firstUse, .manual])
        _ = appearing
    }

    @Test("3. an unobserved entry is stale for filters only without data or when invalidated, whatever its age")
    func unobservedStalenessIgnoresAge() async {
        let harness = TestQueryClient()  // staleTime 0: an observer would see the data stale at once
        harness.client.setQueryData(1, for: "kept")
        await harness.advance(by: .seconds(60))
        let stale = { harness.client.entries(matching: "kept", exact: true, filter: QueryFilter(isStale: true)) }
        #expect(stale().isEmpty)
        #expect(harness.client.existingEntry(for: "kept")?.info(at: harness.scheduler.now).isStale == false)
        #expect(harness.client.invalidateQueries("kept").count == 1)
        #expect(stale().count == 1)
    }

    @Test("4. an awaited refetchQueries does not wait for a query paused offline; it waits for the others")
    func awaitedRefetchSkipsPausedQueries() async {
        let harness = TestQueryClient()
        let online = ScriptedFetcher<Void, Int>(.answer(1), .hang())
        let paused = ScriptedFetcher<Void, Int>(.answer(2))
        let always = Query(
            key: ["r", "always"], behavior: .startImmediately(()), options: QueryOptions(networkMode: .always),
            client: harness.client, fetcher: online.fetch)
        let onlineOnly = Query(
            key: ["r", "online"], behavior: .startImmediately(()), client: harness.client, fetcher: paused.fetch)
        await harness.client.waitUntilIdle()
        harness.client.setOnline(false)
        let started = harness.client.refetchQueries("r")
        #expect(onlineOnly.snapshot.fetchStatus == .paused)
        await online.waitForCalls(2)
        let settled = Locked(false)
        let waiting = Task {
            await started.settled()
            settled.withLock { $0 = true }
        }
        online.release(returning: 3)
        await waiting.value
        #expect(settled.withLock { $0 })
        #expect(always.state.value == 3)
        #expect(onlineOnly.snapshot.fetchStatus == .paused, "settled() returned without the network")
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        #expect(paused.callCount == 2)
    }

    @Test("5. with networkMode always, refetchOnReconnect defaults to never; set explicitly, it applies")
    func alwaysModeDoesNotRefetchOnReconnect() async {
        let harness = TestQueryClient()
        let always = Query<Void, Int>(
            key: "always", behavior: .startImmediately(()), options: QueryOptions(networkMode: .always),
            client: harness.client
        ) { 1 }
        let explicit = Query<Void, Int>(
            key: "explicit", behavior: .startImmediately(()),
            options: QueryOptions(networkMode: .always, refetchOnReconnect: .ifStale), client: harness.client
        ) { 2 }
        let online = Query<Void, Int>(key: "online", behavior: .startImmediately(()), client: harness.client) { 3 }
        await harness.client.waitUntilIdle()
        harness.client.setOnline(false)
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        #expect(harness.fetchReasons(for: "always") == [.firstUse])
        #expect(harness.fetchReasons(for: "explicit") == [.firstUse, .reconnect])
        #expect(harness.fetchReasons(for: "online") == [.firstUse, .reconnect])
        #expect(QueryDefaults(networkMode: .always).refetchOnReconnect == .never)
        #expect(QueryDefaults(refetchOnReconnect: .always, networkMode: .always).refetchOnReconnect == .always)
        _ = (always, explicit, online)
    }

    @Test("6. a mutation's failureCount goes back to 0 when a call succeeds after retries")
    func mutationFailureCountResetsOnSuccess() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, Int>(.fail(APIError.offline), .answer(5))
        let mutation = Mutation<Int, Int>(
            client: harness.client, options: MutationOptions(retry: .count(1)), fetcher: fetcher.fetch)
        mutation.execute(with: 1)
        await harness.client.waitUntilIdle()
        #expect(mutation.latestCall?.failureCount == 1)
        await harness.advance(by: .seconds(1))
        #expect(mutation.state.value == 5)
        #expect(mutation.latestCall?.failureCount == 0)
    }

    @Test("7. cancelQueries(revert: false) on a failed query with no data keeps its error")
    func cancelWithoutRevertKeepsError() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .never))
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.status(500)), .hang())
        let query = Query(
            key: "failed", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(query.snapshot.status == .error)
        query.refetch()
        await fetcher.waitForCalls(2)
        harness.client.cancelQueries("failed", revert: false)
        #expect(query.snapshot.status == .error)
        #expect(query.snapshot.fetchStatus == .idle)
        #expect(query.snapshot.error as? APIError == .status(500))
    }

    @Test("defaults merge field by field: the longer prefix wins per field, the rest comes from shorter ones")
    func defaultsMerge() {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(100), retry: .default))
        harness.client.setQueryDefaults(QueryDefaults(staleTime: .seconds(60), enabled: false), for: "todos")
        harness.client.setQueryDefaults(QueryDefaults(retry: .never, enabled: true), for: ["todos", "detail"])
        let detail = harness.client.defaults(for: ["todos", "detail", 7])
        #expect(detail.staleTime == .seconds(60))
        #expect(detail.enabled)
        #expect(detail.gcTime == .seconds(100))
        #expect(detail.retry.delayBeforeRetry(1, APIError.offline) == nil)
        let list = harness.client.defaults(for: ["todos", "list"])
        #expect(list.staleTime == .seconds(60))
        #expect(!list.enabled)
        #expect(list.retry.delayBeforeRetry(1, APIError.offline) != nil)
    }

    @Test("defaults carry enabled, polling and refetchIntervalInBackground to the queries under their prefix")
    func defaultsCarryQueryOptions() async {
        let harness = TestQueryClient()
        harness.client.setQueryDefaults(QueryDefaults(enabled: false), for: "off")
        harness.client.setQueryDefaults(
            QueryDefaults(pollingBehavior: .pollEvery(.seconds(10)), refetchIntervalInBackground: true), for: "poll")
        let off = Query<Void, Int>(key: ["off", 1], behavior: .startImmediately(()), client: harness.client) { 1 }
        let poll = Query<Void, Int>(key: ["poll", 1], behavior: .startImmediately(()), client: harness.client) { 2 }
        await harness.client.waitUntilIdle()
        harness.client.setFocused(false)
        await harness.advance(by: .seconds(10))
        #expect(harness.fetchReasons(for: ["off", 1]).isEmpty)
        #expect(harness.fetchReasons(for: ["poll", 1]) == [.firstUse, .interval])
        #expect(poll.pollingBehavior == .pollEvery(.seconds(10)))
        _ = off
    }

    @Test("setOptions changes a live query's polling interval, from now; noPolling stops it")
    func setOptionsChangesPolling() async {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(
            key: "p", behavior: .startImmediately(()), pollingBehavior: .pollEvery(.seconds(10)),
            client: harness.client
        ) { 1 }
        await harness.advance(by: .seconds(4))
        query.setOptions(QueryOptions(pollingBehavior: .pollEvery(.seconds(2))))
        await harness.advance(by: .seconds(2))
        #expect(harness.fetchReasons(for: "p") == [.firstUse, .interval])
        await harness.advance(by: .seconds(2))
        #expect(harness.fetchReasons(for: "p") == [.firstUse, .interval, .interval])
        query.setOptions(QueryOptions(pollingBehavior: .noPolling))
        await harness.advance(by: .seconds(30))
        #expect(harness.fetchReasons(for: "p").count == 3)
        #expect(harness.scheduler.pendingCount == 0)
    }

    @Test("resumePausedMutations reads nothing from the platform: it resumes under the connectivity it is told")
    func resumeIsDeterministic() {
        let harness = TestQueryClient()
        harness.client.setOnline(false)
        #expect(harness.client.resumePausedMutations() == 0)
        #expect(!harness.client.isOnline, "nil keeps the client's connectivity as told")
        harness.client.resumePausedMutations(isOnline: true)
        #expect(harness.client.isOnline)
        harness.client.resumePausedMutations(isOnline: false)
        #expect(!harness.client.isOnline)
    }
}
