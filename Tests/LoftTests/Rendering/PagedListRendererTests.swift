import LoftTesting
import Testing

@testable import Loft

private struct NumbersRenderer: PagedListRenderer {
    func loadingView() -> String { "loading" }
    func failureView(for error: any Error) -> String { "failed: \(error)" }
    func itemView(for item: Int) -> String { "#\(item)" }
}

@Suite struct PagedListRendererTests {
    @Test("an infinite query renders loading, items with each footer, and a first-page failure")
    func infinite() async {
        let harness = TestQueryClient()
        let gate = ScriptedFetcher<Int, [Int]>(.hang(), .hang(), .fail(APIError.offline), .answer([]))
        let feed = Feed.make(harness, server: PagedServer(), fetcher: gate.fetch)
        await gate.waitForCalls(1)
        #expect(NumbersRenderer().view(for: feed) == "loading")
        gate.release(returning: [1, 2])
        await harness.client.waitUntilIdle()
        #expect(NumbersRenderer().view(for: feed) == "#1\n#2\n↓ more")
        feed.fetchNextPage()
        await gate.waitForCalls(2)
        #expect(NumbersRenderer().view(for: feed) == "#1\n#2\n⏳ loading more…")
        gate.release(with: .failure(APIError.offline))
        await harness.client.waitUntilIdle()
        #expect(NumbersRenderer().view(for: feed) == "#1\n#2\n⚠️ failed to load more: offline (retry)")
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(NumbersRenderer().view(for: feed) == "#1\n#2\n— end of list —")
    }

    @Test("a paginated query renders its items and footer; a failed first page renders the failure")
    func paginated() async {
        let harness = TestQueryClient()
        let items = PaginatedQuery<Void, NumericPaginatedQueryKey, [Int]>(
            key: "n", firstPage: NumericPaginatedQueryKey(current: 0), behavior: .startImmediately(()),
            options: QueryOptions(retry: .never), client: harness.client
        ) { _, page in page.current == 0 ? [7] : [] }
        await harness.client.waitUntilIdle()
        #expect(NumbersRenderer().view(for: items) == "#7\n↓ more")
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(NumbersRenderer().view(for: items) == "#7\n— end of list —")

        let broken = PaginatedQuery<Void, NumericPaginatedQueryKey, [Int]>(
            key: "broken", firstPage: NumericPaginatedQueryKey(current: 0), behavior: .startImmediately(()),
            options: QueryOptions(retry: .never), client: harness.client
        ) { _, _ in throw APIError.offline }
        await harness.client.waitUntilIdle()
        #expect(NumbersRenderer().view(for: broken) == "failed: offline")
    }
}
