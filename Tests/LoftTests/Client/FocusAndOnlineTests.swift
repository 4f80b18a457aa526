import LoftTesting
import Testing

@testable import Loft

@Suite struct FocusAndOnlineTests {
    @Test("regaining focus refetches stale active queries (reason focus), not fresh ones, nor disabled ones")
    func refetchOnFocus() async {
        let harness = TestQueryClient()
        let stale = Query<Void, Int>(key: "stale", behavior: .startImmediately(()), client: harness.client) { 1 }
        let fresh = Query<Void, Int>(
            key: "fresh", behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(60)),
            client: harness.client
        ) { 2 }
        let always = Query<Void, Int>(
            key: "always", behavior: .startImmediately(()),
            options: QueryOptions(staleTime: .infinity, refetchOnFocus: .always), client: harness.client
        ) { 3 }
        let never = Query<Void, Int>(
            key: "never", behavior: .startImmediately(()), options: QueryOptions(refetchOnFocus: .never),
            client: harness.client
        ) { 4 }
        await harness.client.waitUntilIdle()
        harness.client.setFocused(true)  // already focused: nothing
        harness.client.setFocused(false)
        harness.client.setFocused(true)
        await harness.client.waitUntilIdle()
        #expect(harness.fetchReasons(for: "stale") == [.firstUse, .focus])
        #expect(harness.fetchReasons(for: "fresh") == [.firstUse])
        #expect(harness.fetchReasons(for: "always") == [.firstUse, .focus])
        #expect(harness.fetchReasons(for: "never") == [.firstUse])
        _ = (stale, fresh, always, never)
    }

    @Test("a fetch that would start offline is paused, and starts on reconnect; reconnect refetches stale data")
    func pausedUntilOnline() async {
        let harness = TestQueryClient()
        harness.client.setOnline(false)
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        let query = Query(key: "p", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(query.snapshot.fetchStatus == .paused)
        #expect(query.snapshot.status == .pending)
        #expect(harness.client.isFetching(filter: QueryFilter(fetchStatus: .paused)) == 1)
        #expect(fetcher.callCount == 0)
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 1)
        #expect(fetcher.callCount == 1)  // the reconnect trigger joined the resumed fetch
        harness.client.setOnline(false)
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        #expect(harness.fetchReasons(for: "p") == [.firstUse, .reconnect])
    }

    @Test("networkMode: always fetches offline; offlineFirst runs its first attempt and pauses its retries")
    func networkModes() async {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .count(1)))
        harness.client.setOnline(false)
        let always = Query<Void, Int>(
            key: "always", behavior: .startImmediately(()), options: QueryOptions(networkMode: .always),
            client: harness.client
        ) { 1 }
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.offline), .answer(2))
        let offlineFirst = Query(
            key: "offlineFirst", behavior: .startImmediately(()), options: QueryOptions(networkMode: .offlineFirst),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(always.state.value == 1)
        #expect(fetcher.callCount == 1)
        await harness.advance(by: .seconds(1))
        #expect(offlineFirst.snapshot.fetchStatus == .paused)  // the retry came due offline
        #expect(fetcher.callCount == 1)
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        #expect(offlineFirst.state.value == 2)
    }

    @Test("a retry due while unfocused pauses and continues when focus comes back")
    func retryPausesUnfocused() async {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .count(1)))
        let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.offline), .answer(2))
        let query = Query(key: "u", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        harness.client.setFocused(false)
        await harness.advance(by: .seconds(1))
        #expect(query.snapshot.fetchStatus == .paused)
        #expect(fetcher.callCount == 1)
        harness.client.setFocused(true)
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 2)
    }

    @Test("a paused first fetch whose last observer leaves is cancelled, never left paused")
    func pausedFirstFetchCancelled() async {
        let harness = TestQueryClient()
        harness.client.setOnline(false)
        var query: Query<Void, Int>? = Query(key: "gone", behavior: .startImmediately(()), client: harness.client) {
            1
        }
        await harness.client.waitUntilIdle()
        query = nil
        #expect(harness.client.isFetching(filter: QueryFilter(fetchStatus: .paused)) == 0)
        #expect(
            harness.events.values.contains {
                if case .fetchFinished("gone", let error?) = $0 {
                    error as? QueryError == .cancelled(key: "gone")
                } else {
                    false
                }
            })
        #expect(query == nil)
    }

    @Test("polling pauses while unfocused unless refetchIntervalInBackground")
    func pollingInBackground() async {
        let harness = TestQueryClient()
        let foreground = Query<Void, Int>(
            key: "fg", behavior: .startImmediately(()), pollingBehavior: .pollEvery(.seconds(10)),
            client: harness.client
        ) { 1 }
        let background = Query<Void, Int>(
            key: "bg", behavior: .startImmediately(()), pollingBehavior: .pollEvery(.seconds(10)),
            options: QueryOptions(refetchIntervalInBackground: true), client: harness.client
        ) { 2 }
        await harness.client.waitUntilIdle()
        harness.client.setFocused(false)
        await harness.advance(by: .seconds(10))
        #expect(harness.fetchReasons(for: "fg") == [.firstUse])
        #expect(harness.fetchReasons(for: "bg") == [.firstUse, .interval])
        _ = (foreground, background)
    }

    @Test("a client can start offline and unfocused")
    func initialConditions() {
        let client = QueryClient(scheduler: TestScheduler(), isFocused: false, isOnline: false)
        #expect(!client.isFocused)
        #expect(!client.isOnline)
    }
}
