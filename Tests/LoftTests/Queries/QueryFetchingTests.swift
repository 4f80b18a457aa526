import LoftTesting
import Testing

@testable import Loft

@Suite struct QueryFetchingTests {
    @Test("one fetch per key however many queries, consumers and fetchQuery callers ask; all get its result")
    func dedupe() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, String>(.hang())
        let first = Query(key: "user", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        let second = Query(key: "user", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        let consumer = Query<Void, String>.Consumer(key: "user", client: harness.client)
        await fetcher.waitForCalls(1)
        // A caller that reaches the entry after the answer gets it from the cache (fresh for good).
        async let a = harness.client.fetchQuery("user", staleTime: .infinity) { "other" }
        async let b = harness.client.fetchQuery("user", staleTime: .infinity) { "other" }
        #expect(consumer.state.isLoading)
        fetcher.release(returning: "ada")
        let results = try await [a, b]
        await harness.client.waitUntilIdle()
        #expect(results == ["ada", "ada"])
        #expect(fetcher.callCount == 1)
        #expect(first.state.value == "ada")
        #expect(second.state.value == "ada")
        #expect(consumer.state.value == "ada")
    }

    @Test("a trigger joins the fetch in flight; an explicit refetch of a key with data cancels it and starts anew")
    func explicitRefetchCancels() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, String>(.answer("v1"), .hang(), .answer("v3"))
        let query = Query(key: "k", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        query.invalidate()
        await fetcher.waitForCalls(2)
        harness.setFocused(false)
        harness.setFocused(true)  // a trigger: joins
        #expect(fetcher.callCount == 2)
        query.refetch()  // explicit, with data: cancels the hanging fetch and starts a new one
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 3)
        #expect(fetcher.hangingCount == 0)
        #expect(query.state.value == "v3")
    }

    @Test(
        "an invalidation of a key with data replaces the fetch in flight, which may have started before the change"
    )
    func invalidationReplacesFetchInFlight() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, String>(.answer("v1"), .hang(), .answer("v3"))
        let query = Query(key: "k", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        let before = query.refetch()
        await fetcher.waitForCalls(2)
        let started = harness.client.invalidateQueries("k")
        await started.settled()
        #expect(fetcher.callCount == 3)
        #expect(fetcher.hangingCount == 0, "the fetch that started before the invalidation was cancelled")
        #expect(query.state.value == "v3")
        #expect(try await before.value == "v3", "its caller gets the replacing fetch's result")
        #expect(harness.fetchReasons(for: "k").last == .invalidation)
    }

    @Test("stale-while-revalidate: fresh data is served without a fetch, stale data is refetched on appear")
    func staleVersusFresh() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2))
        let options = QueryOptions<Int>(staleTime: .seconds(10))
        let first = Query(
            key: "n", behavior: .startImmediately(()), options: options, client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(5))
        let fresh = Query(
            key: "n", behavior: .startImmediately(()), options: options, client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        #expect(fresh.snapshot.isStale == false)
        await harness.advance(by: .seconds(5))
        #expect(fresh.snapshot.isStale)
        let stale = Query(
            key: "n", behavior: .startImmediately(()), options: options, client: harness.client, fetcher: fetcher.fetch)
        #expect(stale.state.value == 1)  // the stale value is shown while revalidating
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 2)
        #expect(stale.state.value == 2)
        #expect(harness.fetchReasons(for: "n") == [.firstUse, .appear])
        _ = (first, fresh)
    }

    @Test("retry: 1 s, 2 s, 4 s, then the failure; failureCount counts every attempt")
    func retryBackOff() async {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .default))
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.offline))
        let query = Query(key: "r", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        #expect(query.state.isLoading)
        await harness.advance(by: .milliseconds(999))
        #expect(fetcher.callCount == 1)
        await harness.advance(by: .milliseconds(1))
        #expect(fetcher.callCount == 2)
        await harness.advance(by: .seconds(2))
        #expect(fetcher.callCount == 3)
        await harness.advance(by: .milliseconds(3_999))
        #expect(fetcher.callCount == 3)
        #expect(query.snapshot.failureCount == 3)
        await harness.advance(by: .milliseconds(1))
        #expect(fetcher.callCount == 4)
        #expect(query.state.error as? APIError == .offline)
        #expect(query.snapshot.failureCount == 4)
        #expect(query.snapshot.status == .error)
        #expect(harness.scheduler.pendingCount == 0)
    }

    @Test("a custom retry policy decides from the attempt count and the typed error")
    func customRetry() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.status(503)), .fail(APIError.status(404)), .answer(1))
        let query = Query(
            key: "c", behavior: .startImmediately(()), options: QueryOptions(retry: .skippingClientErrors),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(1))
        #expect(fetcher.callCount == 2)
        #expect(query.state.error as? APIError == .status(404))  // a 4xx is not retried
        let custom = RetryPolicy.custom { attempt, error in
            attempt < 2 && (error as? APIError) == .offline ? .milliseconds(10) : nil
        }
        #expect(custom.delayBeforeRetry(1, APIError.offline) == .milliseconds(10))
        #expect(custom.delayBeforeRetry(2, APIError.offline) == nil)
        #expect(RetryPolicy.backOff(afterFailure: 10) == .seconds(30))
    }

    @Test("a failed refetch keeps the last good data visible; the error goes into the snapshot")
    func keepsDataOnFailure() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, String>(.answer("good"), .fail(APIError.offline))
        let query = Query(
            key: "d", behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(query.state.value == "good")
        #expect(query.snapshot.error as? APIError == .offline)
        #expect(query.snapshot.status == .error)
        #expect(query.snapshot.fetchStatus == .idle)
    }

    @Test("polling refetches every interval and stops when the query is released")
    func polling() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        var query: Query<Void, Int>? = Query(
            key: "p", behavior: .startImmediately(()), pollingBehavior: .pollEvery(.seconds(5)),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(5))
        await harness.advance(by: .seconds(5))
        #expect(fetcher.callCount == 3)
        #expect(harness.fetchReasons(for: "p") == [.firstUse, .interval, .interval])
        #expect(query != nil)
        query = nil
        await harness.advance(by: .seconds(20))
        #expect(fetcher.callCount == 3)
        #expect(PollingBehavior.pollEvery(2) == .pollEvery(.seconds(2)))
    }

    @Test("a key adapter gives each request its own entry: user 1 and user 2 never share state")
    func keyAdapterIsolation() async throws {
        let harness = TestQueryClient()
        let query = Query<Int, User>(
            key: "user", keyAdapter: { key, id in key.appending(id) }, client: harness.client
        ) { id in User(id: id, name: "user \(id)") }
        query.refetch(request: 1)
        await harness.client.waitUntilIdle()
        #expect(query.key == ["user", 1])
        #expect(query.state.value?.id == 1)
        query.refetch(request: 2)
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.id == 2)
        #expect(try harness.client.getQueryData(["user", 1], as: User.self)?.id == 1)
        #expect(try harness.client.getQueryData(["user", 2], as: User.self)?.id == 2)
        #expect(harness.observerCount(["user", 1]) == 0)
        #expect(harness.observerCount(["user", 2]) == 1)
    }

    @Test("enabled: false never fetches by itself and is pending and idle; refetch still fetches")
    func disabled() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        let query = Query(
            key: "off", behavior: .startImmediately(()), pollingBehavior: .pollEvery(.seconds(1)),
            options: QueryOptions(enabled: false), client: harness.client, fetcher: fetcher.fetch)
        query.invalidate()
        await harness.advance(by: .seconds(3))
        #expect(fetcher.callCount == 0)
        #expect(query.snapshot.status == .pending)
        #expect(query.snapshot.fetchStatus == .idle)
        #expect(query.state.isIdle)
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 1)
    }

    @Test("value(for:) returns fresh cached data without a fetch, else fetches")
    func valueFor() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(60)))
        let fetcher = ScriptedFetcher<Int, String>(.answer("a"), .answer("b"))
        let query = Query(
            key: "v", keyAdapter: { $0.appending($1) }, client: harness.client, fetcher: fetcher.fetch)
        #expect(try await query.value(for: 1) == "a")
        #expect(try await query.value(for: 1) == "a")
        #expect(fetcher.callCount == 1)
        #expect(try await query.value(for: 2) == "b")
    }

    @Test("a publisher fetcher's first value is the response; finishing empty is a typed error")
    func publisherFetcher() async {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(
            key: "pub", behavior: .startImmediately(()), client: harness.client
        ) { _ in Just(7).setFailureType(to: (any Error).self).eraseToAnyPublisher() }
        let empty = Query<Void, Int>(
            key: "empty", behavior: .startImmediately(()), options: QueryOptions(retry: .never),
            client: harness.client
        ) { _ in Empty().eraseToAnyPublisher() }
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 7)
        #expect(empty.state.error as? QueryError == .emptyResponse(key: "empty"))
    }
}
