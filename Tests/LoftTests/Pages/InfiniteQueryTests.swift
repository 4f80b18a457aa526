import Foundation
import LoftTesting
import Testing

@testable import Loft

/// A paged server list: page n holds `[10n, 10n + 1]`; pages 0 to `last` exist, and every request is logged.
final class PagedServer: Sendable {
    let last: Int
    private let log = Locked<[Int]>([])
    private let version = Locked(0)

    init(last: Int = 9) {
        self.last = last
    }

    var requested: [Int] { log.withLock { $0 } }

    /// Changes every page's content (a new version of the list on the server).
    func update() { version.withLock { $0 += 1 } }

    func page(_ number: Int) async throws -> [Int] {
        log.withLock { $0.append(number) }
        guard number >= 0, number <= last else { return [] }
        let offset = version.withLock { $0 } * 1000
        return [number * 10 + offset, number * 10 + 1 + offset]
    }
}

typealias Feed = InfiniteQuery<Int, [Int]>

extension Feed {
    static func make(
        _ harness: TestQueryClient, server: PagedServer, initial: Int = 0, maxPages: Int? = nil,
        options: QueryOptions<InfiniteData<Int, [Int]>> = QueryOptions(retry: .never),
        cache: (any QueryCacheType)? = nil, behavior: QueryBehavior<Void> = .startImmediately(()),
        fetcher: (@Sendable (Int) async throws -> [Int])? = nil
    ) -> Feed {
        InfiniteQuery(
            key: "feed", initialPageParam: initial,
            getNextPageParam: { page, _, param, _ in page.isEmpty ? nil : param + 1 },
            getPreviousPageParam: { _, _, param, _ in param > 0 ? param - 1 : nil },
            maxPages: maxPages, behavior: behavior, options: options, cache: cache, client: harness.client,
            fetcher: fetcher ?? server.page)
    }
}

@Suite struct InfiniteQueryTests {
    @Test("a publisher fetcher works as Pigeon's: its first value is the page; an empty one fails with a typed error")
    func publisherFetcher() async {
        let harness = TestQueryClient()
        let feed = InfiniteQuery<Int, [Int]>(
            key: "published", initialPageParam: 0, getNextPageParam: { _, _, last, _ in last + 1 },
            behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client
        ) { param in
            param == 0
                ? [[1, 2], [3]].publisher.setFailureType(to: (any Error).self).eraseToAnyPublisher()
                : Empty().eraseToAnyPublisher()
        }
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pages == [[1, 2]])
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(feed.snapshot.error as? QueryError == .emptyResponse(key: "published"))
        #expect(feed.state.value?.pages == [[1, 2]])
    }

    @Test("pages and params stay aligned through next, previous and refetch")
    func aligned() async {
        let harness = TestQueryClient()
        let server = PagedServer()
        let feed = Feed.make(harness, server: server, initial: 5)
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        feed.fetchPreviousPage()
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pageParams == [4, 5, 6])
        #expect(feed.state.value?.pages == [[40, 41], [50, 51], [60, 61]])
        server.update()
        feed.refetch()
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pageParams == [4, 5, 6])
        #expect(feed.state.value?.pages.map(\.first) == [1040, 1050, 1060])
        #expect(server.requested == [5, 6, 4, 4, 5, 6])
    }

    @Test("maxPages drops the first page going forward and the last going backward")
    func maxPages() async {
        let harness = TestQueryClient()
        let feed = Feed.make(harness, server: PagedServer(), initial: 3, maxPages: 2)
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pageParams == [4, 5])
        feed.fetchPreviousPage()
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pageParams == [3, 4])
        #expect(feed.state.value?.pages.count == 2)
    }

    @Test("concurrent fetchNextPage calls fetch the next page once")
    func noDuplicatePageFetch() async {
        let harness = TestQueryClient()
        let server = PagedServer()
        let gate = ScriptedFetcher<Int, [Int]>(.answer([0, 1]), .hang())
        let feed = Feed.make(harness, server: server, fetcher: gate.fetch)
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await gate.waitForCalls(2)
        #expect(feed.isFetchingNextPage)
        #expect(!feed.isFetchingPreviousPage)
        feed.fetchNextPage()
        feed.fetchNextPage()
        gate.release(returning: [10, 11])
        await harness.client.waitUntilIdle()
        #expect(gate.callCount == 2)
        #expect(gate.requests == [0, 1])
        #expect(feed.state.value?.pageParams == [0, 1])
        #expect(!feed.isFetchingNextPage)
    }

    @Test("an explicit refetch cancels a page fetch in flight and refetches the loaded pages")
    func refetchCancelsPageFetch() async {
        let harness = TestQueryClient()
        let gate = ScriptedFetcher<Int, [Int]>(.answer([0, 1]), .hang(), .answer([100, 101]))
        let feed = Feed.make(harness, server: PagedServer(), fetcher: gate.fetch)
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await gate.waitForCalls(2)
        feed.refetch()
        await harness.client.waitUntilIdle()
        #expect(gate.requests == [0, 1, 0])
        #expect(gate.hangingCount == 0)
        #expect(feed.state.value?.pages == [[100, 101]])
    }

    @Test("a refetch replaces all pages at once: no observer sees a half-refetched list")
    func atomicRefetch() async {
        let harness = TestQueryClient()
        let server = PagedServer()
        let feed = Feed.make(harness, server: server)
        await harness.client.waitUntilIdle()
        for _ in 0..<2 {
            feed.fetchNextPage()
            await harness.client.waitUntilIdle()
        }
        let recorder = PublisherRecorder(feed.statePublisher)
        server.update()
        feed.refetch()
        await harness.client.waitUntilIdle()
        let seen = recorder.values.compactMap(\.value)
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.pages.count == 3 })
        #expect(seen.last?.pages.map(\.first) == [1000, 1010, 1020])
    }

    @Test("a failed next page keeps the loaded pages and exposes the error")
    func failedNextPage() async {
        let harness = TestQueryClient()
        let gate = ScriptedFetcher<Int, [Int]>(.answer([0, 1]), .fail(APIError.offline))
        let feed = Feed.make(harness, server: PagedServer(), fetcher: gate.fetch)
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pages == [[0, 1]])
        #expect(feed.snapshot.error as? APIError == .offline)
        #expect(feed.hasNextPage)
    }

    @Test("hasNextPage turns false once a page comes back empty; fetchNextPage then does nothing")
    func endOfList() async {
        let harness = TestQueryClient()
        let server = PagedServer(last: 1)
        let feed = Feed.make(harness, server: server)
        await harness.client.waitUntilIdle()
        #expect(!feed.hasPreviousPage)
        for _ in 0..<3 {
            feed.fetchNextPage()
            await harness.client.waitUntilIdle()
        }
        #expect(feed.state.value?.pageParams == [0, 1, 2])
        #expect(!feed.hasNextPage)
        #expect(server.requested == [0, 1, 2])
    }

    @Test("prefix invalidation refetches an infinite query's pages")
    func invalidation() async {
        let harness = TestQueryClient()
        let server = PagedServer()
        let feed = Feed.make(harness, server: server)
        await harness.client.waitUntilIdle()
        feed.fetchNextPage()
        await harness.client.waitUntilIdle()
        server.update()
        await harness.client.invalidateQueries("feed").settled()
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pages.map(\.first) == [1000, 1010])
        #expect(harness.fetchReasons(for: "feed").last == .invalidation)
    }

    @Test("select shapes what observers see; the stored pages stay whole")
    func select() async throws {
        let harness = TestQueryClient()
        let options = QueryOptions<InfiniteData<Int, [Int]>>(
            retry: .never,
            select: { data in
                InfiniteData(pages: data.pages.map { $0.filter { $0 % 2 == 0 } }, pageParams: data.pageParams)
            })
        let feed = Feed.make(harness, server: PagedServer(), options: options)
        await harness.client.waitUntilIdle()
        #expect(feed.state.value?.pages == [[0]])
        #expect(try harness.client.getQueryData("feed", as: InfiniteData<Int, [Int]>.self)?.pages == [[0, 1]])
    }

    @Test("InfiniteData persists and comes back on start-up")
    func persistence() async {
        let folder = TemporaryDirectory()
        let first = TestQueryClient(cache: JSONFileQueryCache(directory: folder.url))
        let feed = Feed.make(first, server: PagedServer())
        await first.client.waitUntilIdle()
        feed.fetchNextPage()
        await first.client.waitUntilIdle()

        let second = TestQueryClient(
            cache: JSONFileQueryCache(directory: folder.url),
            cacheConfig: QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
        let server = PagedServer()
        let restored = Feed.make(second, server: server)
        await second.client.waitUntilIdle()
        #expect(restored.state.value?.pageParams == [0, 1])
        #expect(restored.snapshot.isRestored)
        #expect(server.requested.isEmpty)
    }

    @Test("a released infinite query leaves its entry")
    func release() async {
        let harness = TestQueryClient()
        var feed: Feed? = Feed.make(harness, server: PagedServer())
        await harness.client.waitUntilIdle()
        weak let watched = feed
        #expect(harness.observerCount("feed") == 1)
        feed = nil
        #expect(watched == nil)
        #expect(harness.observerCount("feed") == 0)
    }
}
