import LoftTesting
import Testing

@testable import Loft

/// Point 1 of the day-one API: the calls that start a fetch return at once, and what they return awaits the
/// result, with fetchers that answer only when the test releases them (a slow server).
@Suite struct StartedFetchTests {
    struct Refused: Error, Equatable {}

    @Test("refetch(request:) returns at once; its value is the fetch's result, or its error")
    func refetchCanBeAwaited() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, String>(.hang(), .fail(Refused()))
        let query = Query(
            key: "user", keyAdapter: { $0.appending($1) }, options: QueryOptions(retry: .never), client: harness.client,
            fetcher: fetcher.fetch)
        let started = query.refetch(request: 1)
        await fetcher.waitForCalls(1)
        #expect(query.state.value == nil, "the call returned before the fetch answered")
        fetcher.release(returning: "ada")
        #expect(try await started.value == "ada")
        #expect(query.state.value == "ada")
        await #expect(throws: Refused.self) { try await query.refetch(request: 2).value }
        if case .failure(let error) = await query.refetch(request: 2).result {
            #expect(error is Refused)
        } else {
            Issue.record("a failed fetch's result is a failure")
        }
    }

    @Test("a Void query's refetch() and value() await the same way")
    func voidQuery() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.hang(), .answer(2))
        let query = Query(key: "count", client: harness.client, fetcher: fetcher.fetch)
        let started = query.refetch()
        await fetcher.waitForCalls(1)
        fetcher.release(returning: 1)
        #expect(try await started.value == 1)
        #expect(try await query.value() == 2, "staleTime 0: value() fetches again, and waits for it")
    }

    @Test("fetchNextPage and fetchPreviousPage return the load; its value holds every page once the page came")
    func infinitePagesCanBeAwaited() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, [Int]>(.hang())
        let feed = InfiniteQuery<Int, [Int]>(
            key: "feed", initialPageParam: 5,
            getNextPageParam: { page, _, param, _ in page.isEmpty ? nil : param + 1 },
            getPreviousPageParam: { _, _, param, _ in param > 4 ? param - 1 : nil },
            options: QueryOptions(retry: .never), client: harness.client, fetcher: fetcher.fetch)
        let first = feed.fetchNextPage()
        await fetcher.waitForCalls(1)
        fetcher.release(returning: [50])
        #expect(try await first.value.pages == [[50]])
        let next = feed.fetchNextPage()
        await fetcher.waitForCalls(2)
        #expect(feed.state.value?.pages == [[50]], "the page has not come yet")
        let joined = feed.fetchNextPage()  // joins the load in flight
        fetcher.release(returning: [60])
        #expect(try await next.value.pages == [[50], [60]])
        #expect(try await joined.value.pages == [[50], [60]])
        #expect(fetcher.callCount == 2)
        let previous = feed.fetchPreviousPage()
        await fetcher.waitForCalls(3)
        fetcher.release(returning: [40])
        #expect(try await previous.value.pages == [[40], [50], [60]])
        // No page before 4: the pages as they are, at once, without a fetch.
        #expect(try await feed.fetchPreviousPage().value.pageParams == [4, 5, 6])
        #expect(fetcher.callCount == 3)
        let refetched = feed.refetch()
        for call in 4...6 {
            await fetcher.waitForCalls(call)
            fetcher.release(returning: [call])
        }
        #expect(try await refetched.value.pages == [[4], [5], [6]])
    }

    @Test("PaginatedQuery.fetchNextPage returns the load; its value is the items of every loaded page")
    func paginatedPagesCanBeAwaited() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, [Int]>(.hang())
        let list = PaginatedQuery<Void, NumericPaginatedQueryKey, [Int]>(
            key: "numbers", firstPage: NumericPaginatedQueryKey(current: 0), options: QueryOptions(retry: .never),
            client: harness.client
        ) { _, page in try await fetcher.fetch(page.current) }
        let first = list.refetch()
        await fetcher.waitForCalls(1)
        fetcher.release(returning: [0, 1])
        #expect(try await first.value == [0, 1])
        let next = list.fetchNextPage()
        await fetcher.waitForCalls(2)
        let joined = list.fetchNextPage()  // the last page is loading: joins it
        fetcher.release(returning: [2, 3])
        #expect(try await next.value == [0, 1, 2, 3])
        #expect(try await joined.value == [0, 1, 2, 3])
        #expect(list.state.value == [0, 1, 2, 3])
        let last = list.fetchNextPage()
        await fetcher.waitForCalls(3)
        fetcher.release(returning: [])
        #expect(try await last.value == [0, 1, 2, 3])
        #expect(!list.hasNextPage)
        #expect(try await list.fetchNextPage().value == [0, 1, 2, 3], "no next page: the items, at once")
        #expect(fetcher.callCount == 3)
    }

    @Test("Mutation.execute returns the call; its response can be awaited, or its error")
    func executeCanBeAwaited() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<String, String>(.hang(), .fail(Refused()))
        let rename = Mutation<String, String>(client: harness.client, fetcher: fetcher.fetch)
        let call = rename.execute(with: "ada")
        await fetcher.waitForCalls(1)
        #expect(rename.state.value == nil)
        fetcher.release(returning: "Ada")
        #expect(try await call.response == "Ada")
        await #expect(throws: Refused.self) { try await rename.execute(with: "bob").response }
    }

    @Test("a task awaiting a fetch can be cancelled; the fetch goes on and others still get its result")
    func awaitingIsCancellable() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let query = Query(key: "slow", client: harness.client, fetcher: fetcher.fetch)
        let started = query.refetch()
        await fetcher.waitForCalls(1)
        let waiting = Task { try await started.value }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        fetcher.release(returning: 7)
        #expect(try await started.value == 7)
        #expect(query.state.value == 7)
    }
}
