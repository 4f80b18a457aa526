import Foundation
import LoftTesting
import Testing

@testable import Loft

/// Items 0..<total, served `limit` at a time; every request is logged as (status, offset).
final class ItemServer: Sendable {
    let total: Int
    private let log = Locked<[String]>([])

    init(total: Int) {
        self.total = total
    }

    var requested: [String] { log.withLock { $0 } }

    func items(_ status: String, offset: Int, limit: Int) async throws -> [Int] {
        log.withLock { $0.append("\(status)@\(offset)") }
        guard offset < total else { return [] }
        return Array(offset..<min(total, offset + limit)).map { status == "closed" ? -$0 : $0 }
    }
}

typealias Listing = PaginatedQuery<String, LimitOffsetPaginatedQueryKey, [Int]>

@Suite struct PaginatedQueryTests {
    func listing(
        _ harness: TestQueryClient, _ server: ItemServer, options: QueryOptions<[Int]> = QueryOptions(retry: .never),
        cache: (any QueryCacheType)? = nil, fetcher: Listing.Fetcher? = nil
    ) -> Listing {
        PaginatedQuery(
            key: "items", firstPage: LimitOffsetPaginatedQueryKey(limit: 3),
            keyAdapter: { key, status in key.appending(.string(status)) }, behavior: .startImmediately("open"),
            options: options, cache: cache, client: harness.client,
            fetcher: fetcher ?? { status, page in try await server.items(status, offset: page.offset, limit: page.limit)
            }
        )
    }

    /// A listing of "open" items with its first two pages loaded.
    func twoPagesLoaded(_ harness: TestQueryClient, _ server: ItemServer) async -> Listing {
        let items = listing(harness, server)
        await harness.client.waitUntilIdle()
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        return items
    }

    @Test("the list's snapshot and valuePublisher show every loaded page; invalidate refetches every page")
    func listSnapshotAndInvalidate() async {
        let harness = TestQueryClient()
        let server = ItemServer(total: 7)
        let items = await twoPagesLoaded(harness, server)
        let values = PublisherRecorder(items.valuePublisher)
        let snapshots = PublisherRecorder(items.snapshotPublisher)
        let snapshot = items.snapshot
        #expect(snapshot.key == QueryKey("items").appending(.string("open")))
        #expect(snapshot.data == [0, 1, 2, 3, 4, 5])
        #expect(snapshot.status == .success)
        #expect(!snapshot.isFetching)
        #expect(snapshot.dataUpdatedAt != nil)
        #expect(values.values == [[0, 1, 2, 3, 4, 5]])

        items.invalidate()
        #expect(items.snapshot.isFetching)
        await harness.client.waitUntilIdle()
        // Each page refetches on its own, in parallel: the two refetches may reach the server in either order.
        #expect(server.requested.prefix(2) == ["open@0", "open@3"])
        #expect(server.requested.dropFirst(2).sorted() == ["open@0", "open@3"])
        // The refetched pages are equal: no new value, but the fetch showed in the snapshots.
        #expect(values.values == [[0, 1, 2, 3, 4, 5]])
        #expect(snapshots.values.contains { $0.isFetching })
        #expect(snapshots.values.last?.isFetching == false)
    }

    @Test("cancel stops the page fetch in flight; the pages before it stay, and the list is not fetching")
    func cancelStopsThePageInFlight() async {
        let harness = TestQueryClient()
        let second = ScriptedFetcher<Int, [Int]>(.hang())
        let items = listing(harness, ItemServer(total: 0)) { _, page in
            page.offset == 0 ? [0, 1, 2] : try await second.fetch(page.offset)
        }
        await harness.client.waitUntilIdle()
        items.fetchNextPage()
        await second.waitForCalls(1)
        #expect(items.snapshot.isFetching)
        #expect(items.isFetchingNextPage)
        items.cancel()
        await harness.client.waitUntilIdle()
        #expect(!items.snapshot.isFetching)
        #expect(items.state.value == [0, 1, 2])
        #expect(!items.isFetchingNextPage)
    }

    @Test("pages accumulate in order; a short page ends the list")
    func accumulates() async {
        let harness = TestQueryClient()
        let server = ItemServer(total: 7)
        let items = listing(harness, server)
        #expect(items.state.isLoading)
        await harness.client.waitUntilIdle()
        #expect(items.state.value == [0, 1, 2])
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(items.state.value == [0, 1, 2, 3, 4, 5, 6])
        #expect(items.currentPage == LimitOffsetPaginatedQueryKey(limit: 3, offset: 6))
        #expect(!items.hasNextPage)
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(server.requested == ["open@0", "open@3", "open@6"])
    }

    @Test("numeric pages end with an empty page")
    func numericEnd() async {
        let harness = TestQueryClient()
        let server = ItemServer(total: 4)
        let pages = PaginatedQuery<Void, NumericPaginatedQueryKey, [Int]>(
            key: "numbers", firstPage: NumericPaginatedQueryKey(current: 0), behavior: .startImmediately(()),
            client: harness.client
        ) { _, page in try await server.items("open", offset: page.current * 2, limit: 2) }
        await harness.client.waitUntilIdle()
        for _ in 0..<3 {
            pages.fetchNextPage()
            await harness.client.waitUntilIdle()
        }
        #expect(pages.state.value == [0, 1, 2, 3])
        #expect(!pages.hasNextPage)
        #expect(pages.currentPage.current == 2)
    }

    @Test("fetchNextPage while the next page loads fetches it once")
    func noDuplicatePageFetch() async {
        let harness = TestQueryClient()
        let gate = ScriptedFetcher<Int, [Int]>(.answer([0, 1, 2]), .hang())
        let items = listing(harness, ItemServer(total: 9)) { _, page in try await gate.fetch(page.offset) }
        await harness.client.waitUntilIdle()
        items.fetchNextPage()
        await gate.waitForCalls(2)
        #expect(items.isFetchingNextPage)
        items.fetchNextPage()
        items.fetchNextPage()
        gate.release(returning: [3, 4, 5])
        await harness.client.waitUntilIdle()
        #expect(gate.requests == [0, 3])
        #expect(items.state.value == [0, 1, 2, 3, 4, 5])
    }

    @Test("a failed next page keeps the items before it, exposes the error, and is retried by fetchNextPage")
    func failedNextPage() async {
        let harness = TestQueryClient()
        let gate = ScriptedFetcher<Int, [Int]>(.answer([0, 1, 2]), .fail(APIError.offline), .answer([3]))
        let items = listing(harness, ItemServer(total: 4)) { _, page in try await gate.fetch(page.offset) }
        await harness.client.waitUntilIdle()
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(items.state.value == [0, 1, 2])
        #expect(items.error as? APIError == .offline)
        #expect(items.hasNextPage)
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(gate.requests == [0, 3, 3])
        #expect(items.state.value == [0, 1, 2, 3])
        #expect(items.error == nil)
    }

    @Test("revisiting a page within staleTime serves it from its own cache entry")
    func perPageCache() async {
        let harness = TestQueryClient()
        let server = ItemServer(total: 9)
        let options = QueryOptions<[Int]>(staleTime: .seconds(60), retry: .never)
        let first = listing(harness, server, options: options)
        await harness.client.waitUntilIdle()
        first.fetchNextPage()
        await harness.client.waitUntilIdle()
        let again = listing(harness, server, options: options)
        await harness.client.waitUntilIdle()
        again.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(again.state.value == [0, 1, 2, 3, 4, 5])
        #expect(server.requested == ["open@0", "open@3"])
        #expect(harness.client.existingEntry(for: ["items", "open", ["limit": 3, "offset": 3]]) != nil)
    }

    @Test("refetch(request:) starts again from the first page of the new request")
    func refetchResets() async {
        let harness = TestQueryClient()
        let server = ItemServer(total: 9)
        let items = await twoPagesLoaded(harness, server)
        let recorder = PublisherRecorder(items.statePublisher)
        items.refetch(request: "closed")
        await harness.client.waitUntilIdle()
        #expect(items.state.value == [0, -1, -2])
        #expect(items.currentPage.offset == 0)
        #expect(recorder.values.compactMap(\.value).last == [0, -1, -2])
        #expect(server.requested.last == "closed@0")
    }

    @Test("pages persist and come back on start-up")
    func persistence() async {
        let folder = TemporaryDirectory()
        let first = TestQueryClient(cache: JSONFileQueryCache(directory: folder.url))
        let items = listing(first, ItemServer(total: 9))
        await first.client.waitUntilIdle()
        items.fetchNextPage()
        await first.client.waitUntilIdle()

        let second = TestQueryClient(
            cache: JSONFileQueryCache(directory: folder.url),
            cacheConfig: QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
        let server = ItemServer(total: 9)
        let restored = listing(second, server)
        await second.client.waitUntilIdle()
        restored.fetchNextPage()
        await second.client.waitUntilIdle()
        #expect(restored.state.value == [0, 1, 2, 3, 4, 5])
        #expect(server.requested.isEmpty)
    }

    @Test("a publisher fetcher works as Pigeon's; an empty publisher fails the page with a typed error")
    func publisherFetcher() async {
        let harness = TestQueryClient()
        let pages = PaginatedQuery<Void, NumericPaginatedQueryKey, [Int]>(
            key: "published", firstPage: NumericPaginatedQueryKey(current: 0), behavior: .startImmediately(()),
            options: QueryOptions(retry: .never), client: harness.client
        ) { _, page in
            page.current == 0
                ? Just([1, 2]).setFailureType(to: (any Error).self).eraseToAnyPublisher()
                : Empty().eraseToAnyPublisher()
        }
        await harness.client.waitUntilIdle()
        #expect(pages.state.value == [1, 2])
        pages.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(pages.error as? QueryError == .emptyResponse(key: ["published", 1]))
    }

    struct Cursor: PaginatedQueryKey {
        var after: Int
        func next() -> Cursor { Cursor(after: after + 2) }
        var keyPart: QueryKey.Part { .int(after) }
    }

    @Test("a user-defined page key works like the shipped ones")
    func customKey() async {
        let harness = TestQueryClient()
        let server = ItemServer(total: 3)
        let items = PaginatedQuery<Void, Cursor, [Int]>(
            key: "cursor", firstPage: Cursor(after: 0), behavior: .startImmediately(()), client: harness.client
        ) { _, cursor in try await server.items("open", offset: cursor.after, limit: 2) }
        await harness.client.waitUntilIdle()
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        items.fetchNextPage()
        await harness.client.waitUntilIdle()
        #expect(items.state.value == [0, 1, 2])
        #expect(!items.hasNextPage)
    }

    @Test("a released paginated query leaves its pages' entries")
    func release() async {
        let harness = TestQueryClient()
        var items: Listing? = listing(harness, ItemServer(total: 9))
        await harness.client.waitUntilIdle()
        weak let watched = items
        #expect(harness.observerCount(["items", "open", ["limit": 3, "offset": 0]]) == 1)
        items = nil
        #expect(watched == nil)
        #expect(harness.observerCount(["items", "open", ["limit": 3, "offset": 0]]) == 0)
    }
}
