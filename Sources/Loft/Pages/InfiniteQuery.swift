/// A list fetched page by page (TanStack's infinite query): the pages and their parameters live in one cache
/// entry as `InfiniteData`, and every rule of a plain query (dedupe, staleness, garbage collection, retry,
/// invalidation by prefix, persistence) applies to it.
///
/// ```swift
/// let feed = InfiniteQuery<Int, [Post]>(
///     key: "feed",
///     initialPageParam: 0,
///     getNextPageParam: { lastPage, _, lastParam, _ in lastPage.isEmpty ? nil : lastParam + 1 },
///     behavior: .startImmediately(())
/// ) { page in try await api.posts(page: page) }
/// let pages = try await feed.fetchNextPage().value
/// ```
///
/// **Behavior**
/// - `pages` and `pageParams` stay aligned through every operation; `maxPages` drops the first page when
///   fetching forward and the last when fetching backward.
/// - One fetch in flight per key: `fetchNextPage` or `fetchPreviousPage` while any fetch runs joins it (it
///   never fetches the same page twice); call it again when that fetch is done. An explicit `refetch` cancels
///   a page fetch in flight and refetches every loaded page instead.
/// - A refetch (explicit, invalidation, polling) fetches every loaded page again in order, from the first
///   stored parameter, each later parameter computed from the refetched pages; the new pages replace the old
///   at once, so no observer sees a half-refetched list.
/// - A failed page fetch keeps the loaded pages; the error is in `snapshot`.
/// - `select` applies to what observers see; `hasNextPage` and `hasPreviousPage` read the stored pages.
/// - Observable; released like a `Query`.
public final class InfiniteQuery<PageParam: Sendable, Page: Sendable>: Sendable {
    /// Computes the parameter of the next (or previous) page from the last (or first) page, all pages, its
    /// parameter and all parameters; nil means there is no more.
    public typealias PageParamGetter =
        @Sendable (
            _ page: Page, _ allPages: [Page], _ pageParam: PageParam, _ allPageParams: [PageParam]
        ) -> PageParam?

    private let query: Query<InfiniteFetchDirection, InfiniteData<PageParam, Page>>
    private let loader: InfinitePageLoader<PageParam, Page>

    /// Makes an infinite query.
    ///
    /// - Parameters:
    ///   - key: the key of the whole list.
    ///   - initialPageParam: the parameter of the first page.
    ///   - getNextPageParam: the parameter of the page after the last; nil when there is none.
    ///   - getPreviousPageParam: the parameter of the page before the first; nil (the default) for lists that
    ///     only grow forward.
    ///   - maxPages: the most pages kept (default: all).
    ///   - behavior: `.startImmediately(())` loads the first page at once; `.startWhenRequested` (default)
    ///     waits for `fetchNextPage()` or `refetch()`.
    ///   - pollingBehavior: refetches every loaded page on a timer. Default: the options', then the defaults' (`.noPolling`).
    ///   - options: freshness, retries, `enabled`, `select`… Default: the client's.
    ///   - cache: the persistent cache of the pages (a `Codable` `PageParam` and `Page` only).
    ///   - cacheConfig: how it is used.
    ///   - client: the cache. Default `QueryClient.shared`.
    ///   - fetcher: fetches one page; it may throw, and is cancelled when the fetch is.
    public init(
        key: QueryKey,
        initialPageParam: PageParam,
        getNextPageParam: @escaping PageParamGetter,
        getPreviousPageParam: PageParamGetter? = nil,
        maxPages: Int? = nil,
        behavior: QueryBehavior<Void> = .startWhenRequested,
        pollingBehavior: PollingBehavior? = nil,
        options: QueryOptions<InfiniteData<PageParam, Page>> = QueryOptions(),
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        client: QueryClient = .shared,
        fetcher: @escaping @Sendable (PageParam) async throws -> Page
    ) {
        let loader = InfinitePageLoader(
            initialPageParam: initialPageParam, nextParam: getNextPageParam, previousParam: getPreviousPageParam,
            maxPages: maxPages, fetchPage: fetcher)
        self.loader = loader
        let start: QueryBehavior<InfiniteFetchDirection> =
            switch behavior {
            case .startImmediately: .startImmediately(.refetchAll)
            case .startWhenRequested: .startWhenRequested
            }
        query = Query(
            key: key, behavior: start, pollingBehavior: pollingBehavior, options: options, cache: cache,
            cacheConfig: cacheConfig, client: client
        ) { direction in
            let current = try? client.getQueryData(key, as: InfiniteData<PageParam, Page>.self)
            return try await loader.load(direction, from: current ?? nil)
        }
        query.setCurrentRequest(.refetchAll)
    }

    /// Makes an infinite query whose fetcher returns a publisher (Pigeon's shape); its first value is the page.
    ///
    /// A publisher that finishes without a value fails the page fetch with `QueryError.emptyResponse`; one that
    /// fails fails it with its error. The other parameters are those of the `async` initialiser.
    public convenience init(
        key: QueryKey,
        initialPageParam: PageParam,
        getNextPageParam: @escaping PageParamGetter,
        getPreviousPageParam: PageParamGetter? = nil,
        maxPages: Int? = nil,
        behavior: QueryBehavior<Void> = .startWhenRequested,
        pollingBehavior: PollingBehavior? = nil,
        options: QueryOptions<InfiniteData<PageParam, Page>> = QueryOptions(),
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        client: QueryClient = .shared,
        fetcher: @escaping @Sendable (PageParam) -> AnyPublisher<Page, any Error>
    ) {
        self.init(
            key: key, initialPageParam: initialPageParam, getNextPageParam: getNextPageParam,
            getPreviousPageParam: getPreviousPageParam, maxPages: maxPages, behavior: behavior,
            pollingBehavior: pollingBehavior, options: options, cache: cache, cacheConfig: cacheConfig, client: client
        ) { param in
            for try await page in fetcher(param).values { return page }
            throw QueryError.emptyResponse(key: key)
        }
    }

    // MARK: - State

    /// The key of the list.
    public var key: QueryKey {
        query.key
    }

    /// What to show: idle, loading, failed, or the pages (after `select`).
    public var state: QueryState<InfiniteData<PageParam, Page>> {
        query.state
    }

    /// The full picture: pages, error, statuses, times, staleness.
    public var snapshot: QuerySnapshot<InfiniteData<PageParam, Page>> {
        query.snapshot
    }

    /// Whether `getNextPageParam` gives a parameter after the last stored page.
    public var hasNextPage: Bool {
        _ = query.observation.observer.trackedBox
        return loader.hasNextPage(storedData)
    }

    /// Whether `getPreviousPageParam` gives a parameter before the first stored page.
    public var hasPreviousPage: Bool {
        _ = query.observation.observer.trackedBox
        return loader.hasPreviousPage(storedData)
    }

    /// Whether the fetch in flight is loading the next page.
    public var isFetchingNextPage: Bool {
        _ = query.observation.observer.trackedBox
        return fetchDirection == .next
    }

    /// Whether the fetch in flight is loading the previous page.
    public var isFetchingPreviousPage: Bool {
        _ = query.observation.observer.trackedBox
        return fetchDirection == .previous
    }

    /// Every change of `state`, starting with the current one.
    public var statePublisher: AnyPublisher<QueryState<InfiniteData<PageParam, Page>>, Never> {
        query.statePublisher
    }

    /// Every new list of pages (after `select`), starting with the current one if there is one.
    public var valuePublisher: AnyPublisher<InfiniteData<PageParam, Page>, Never> {
        query.valuePublisher
    }

    /// Every change of the snapshot, starting with the current one.
    public var snapshotPublisher: AnyPublisher<QuerySnapshot<InfiniteData<PageParam, Page>>, Never> {
        query.snapshotPublisher
    }

    // MARK: - Fetching

    /// Loads the page after the last (the first page when there is none). Joins a fetch in flight instead of
    /// starting another; does nothing more when `hasNextPage` is false.
    ///
    /// Returns at once; what it returns awaits the load: `let pages = try await feed.fetchNextPage().value`.
    ///
    /// - Returns: the load, whose `value` is every stored page once it is done (the fetch joined, when one was
    ///   in flight; the pages as they are, when there is no next page). See `StartedFetch`.
    @discardableResult
    public func fetchNextPage() -> StartedFetch<InfiniteData<PageParam, Page>> {
        let data = storedData
        if let data, !loader.hasNextPage(data) { return StartedFetch(.success(data)) }
        return query.fetchStarted(.next, reason: .manual, intent: .trigger)
    }

    /// Loads the page before the first (the first page when there is none). Joins a fetch in flight instead of
    /// starting another; does nothing more when `hasPreviousPage` is false.
    ///
    /// - Returns: the load, whose `value` is every stored page once it is done. See `fetchNextPage()`.
    @discardableResult
    public func fetchPreviousPage() -> StartedFetch<InfiniteData<PageParam, Page>> {
        let data = storedData
        if let data, !loader.hasPreviousPage(data) { return StartedFetch(.success(data)) }
        return query.fetchStarted(.previous, reason: .manual, intent: .trigger)
    }

    /// Refetches every loaded page in order (the first page when there is none); cancels a page fetch in
    /// flight.
    ///
    /// - Returns: the refetch, whose `value` is the refetched pages. See `StartedFetch`.
    @discardableResult
    public func refetch() -> StartedFetch<InfiniteData<PageParam, Page>> {
        query.refetch(request: .refetchAll)
    }

    /// Marks the list stale and refetches it if the query is enabled.
    public func invalidate() {
        query.invalidate()
    }

    /// Cancels the fetch in flight; the pages go back to what they were before it.
    public func cancel() {
        query.cancel()
    }

    // MARK: - Actions

    private var storedData: InfiniteData<PageParam, Page>? {
        try? query.client.getQueryData(query.key, as: InfiniteData<PageParam, Page>.self)
    }

    private var fetchDirection: InfiniteFetchDirection? {
        guard let snapshot = query.client.existingEntry(for: query.key)?.snapshot, snapshot.fetchStatus == .fetching
        else { return nil }
        return snapshot.fetchMeta as? InfiniteFetchDirection
    }
}

extension InfiniteQuery: ObservableQueryState {}
