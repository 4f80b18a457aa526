/// A list loaded page by page in Pigeon's shape: `fetchNextPage()` adds the next page's items to `state`, and
/// `refetch(request:)` starts again from the first page. Each page is cached under its own key
/// (`key + request + page`), so revisiting a page within `staleTime` does not refetch it, and pages can be
/// persisted with a `QueryCacheType`.
///
/// ```swift
/// let issues = PaginatedQuery<String, NumericPaginatedQueryKey, [Issue]>(
///     key: "issues",
///     firstPage: NumericPaginatedQueryKey(current: 1),
///     behavior: .startImmediately("open")
/// ) { status, page in try await api.issues(status: status, page: page.current) }
/// let items = try await issues.fetchNextPage().value
/// ```
///
/// Choose `PaginatedQuery` for a list whose pages are addressed by number or offset and read front to back,
/// each page useful on its own; choose `InfiniteQuery` for a feed whose next page depends on the last one
/// (cursors), that grows both ways, or that must refetch as one consistent list.
///
/// **Behavior**
/// - `state` is `.loading` or `.failed` while the first page has nothing to show, then `.succeed` with the
///   items of every loaded page, in order (a page still loading or failed after them is not shown yet).
/// - `hasNextPage` is false once a page comes back empty (or short, as `PageIdentifier.isLastPage` says).
/// - `fetchNextPage()` while the last page is still loading does nothing (no page is fetched twice); after a
///   failed page it retries that page.
/// - `refetch(request:)` drops the loaded pages and fetches the first page of `request` (explicitly, even
///   when fresh); a page fetch in flight for the old pages is left to finish into the cache.
/// - Every page is a query of the client: dedupe, retry, invalidation by prefix and garbage collection apply
///   to each. `invalidate()` and `cancel()` act on every loaded page.
/// - `snapshot` is the list's: the items as `data`, `isFetching` while any page loads, `isStale` when any
///   page is, the last page's error and failure count (the first page's whole snapshot while it has nothing
///   to show).
/// - Observable; when released, its pages leave their cache entries.
public final class PaginatedQuery<
    Request: Sendable, PageIdentifier: PaginatedQueryKey, Response: RangeReplaceableCollection & Sendable
>: Sendable {
    /// Fetches one page of a request.
    public typealias Fetcher = @Sendable (Request, PageIdentifier) async throws -> Response

    private struct Page: Sendable {
        let identifier: PageIdentifier
        let query: Query<Void, Response>
        let subscription: Subscription
    }

    private struct State: Sendable {
        var request: Request?
        var pages: [Page] = []
        var generation: UInt64 = 0
    }

    /// The key given at creation; each page's key is derived from it.
    public let baseKey: QueryKey
    /// The first page of every request.
    public let firstPage: PageIdentifier
    /// The client whose cache holds the pages.
    public let client: QueryClient
    private let options: QueryOptions<Response>
    private let keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)?
    private let cache: (any QueryCacheType)?
    private let cacheConfig: QueryCacheConfig?
    private let fetcher: Fetcher
    private let locked = Locked(State())
    private let view: DerivedView<Response>

    /// Makes a paginated query.
    ///
    /// - Parameters:
    ///   - key: the base of every page's key.
    ///   - firstPage: the page every request starts from.
    ///   - keyAdapter: adds the request to the pages' keys (`{ key, status in key.appending(status) }`), so
    ///     that two requests never share a page. Default: the request is not part of the key.
    ///   - behavior: `.startImmediately(request)` loads the first page at once; `.startWhenRequested` (default)
    ///     waits for `refetch(request:)`.
    ///   - options: freshness, retries… of every page. Default: the client's.
    ///   - cache: the persistent cache of the pages (a `Codable` `Response` only).
    ///   - cacheConfig: how it is used.
    ///   - client: the cache. Default `QueryClient.shared`.
    ///   - fetcher: fetches one page of a request.
    public init(
        key: QueryKey,
        firstPage: PageIdentifier,
        keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)? = nil,
        behavior: QueryBehavior<Request> = .startWhenRequested,
        options: QueryOptions<Response> = QueryOptions(),
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        client: QueryClient = .shared,
        fetcher: @escaping Fetcher
    ) {
        baseKey = key
        self.firstPage = firstPage
        self.keyAdapter = keyAdapter
        self.options = options
        self.cache = cache
        self.cacheConfig = cacheConfig
        self.client = client
        self.fetcher = fetcher
        let empty = QuerySnapshot<Response>.empty(key: key)
        view = DerivedView(showing: empty, client: client)
        view.derive { [weak self] in self?.listSnapshot() ?? empty }
        if case .startImmediately(let request) = behavior {
            _ = start(request, explicitly: false)
        }
    }

    /// Makes a paginated query whose fetcher returns a publisher (Pigeon's shape); its first value is the page.
    ///
    /// A publisher that finishes without a value fails the page with `QueryError.emptyResponse`.
    public convenience init(
        key: QueryKey,
        firstPage: PageIdentifier,
        keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)? = nil,
        behavior: QueryBehavior<Request> = .startWhenRequested,
        options: QueryOptions<Response> = QueryOptions(),
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        client: QueryClient = .shared,
        fetcher: @escaping @Sendable (Request, PageIdentifier) -> AnyPublisher<Response, any Error>
    ) {
        self.init(
            key: key, firstPage: firstPage, keyAdapter: keyAdapter, behavior: behavior, options: options, cache: cache,
            cacheConfig: cacheConfig, client: client
        ) { request, page in
            for try await value in fetcher(request, page).values { return value }
            throw QueryError.emptyResponse(key: key.appending(page.keyPart))
        }
    }

    deinit {
        view.observer.close()
    }

    // MARK: - State

    /// What to show: the items of every loaded page in order, or the first page's loading or failure.
    public var state: QueryState<Response> {
        view.observer.trackedState
    }

    /// The full picture of the list: its items, whether a page loads, staleness, the last page's error.
    public var snapshot: QuerySnapshot<Response> {
        view.observer.trackedSnapshot
    }

    /// The last page asked for (the first page before any).
    public var currentPage: PageIdentifier {
        _ = view.observer.trackedBox
        return pages.last?.identifier ?? firstPage
    }

    /// Whether there is a page after the last loaded one: false once a page came back empty or short.
    public var hasNextPage: Bool {
        _ = view.observer.trackedBox
        guard let last = pages.last else { return true }
        guard let items = last.query.observation.snapshot.data else { return true }
        return !last.identifier.isLastPage(itemCount: items.count)
    }

    /// Whether a page after the first is loading.
    public var isFetchingNextPage: Bool {
        _ = view.observer.trackedBox
        let pages = pages
        return pages.count > 1 && pages.last?.query.observation.snapshot.isFetching == true
    }

    /// The error of the last page, if its fetch failed (the pages before it are still in `state`).
    public var error: (any Error)? {
        _ = view.observer.trackedBox
        return pages.last?.query.observation.snapshot.error
    }

    /// Every change of `state`, starting with the current one.
    public var statePublisher: AnyPublisher<QueryState<Response>, Never> {
        view.observer.statePublisher
    }

    /// The items of every loaded page after each change of them, starting with the current ones if there are.
    public var valuePublisher: AnyPublisher<Response, Never> {
        view.observer.valuePublisher
    }

    /// Every change of `snapshot`, starting with the current one.
    public var snapshotPublisher: AnyPublisher<QuerySnapshot<Response>, Never> {
        view.observer.snapshots
    }

    // MARK: - Fetching

    /// Loads the page after the last one. Does nothing while the last page is loading or when there is no
    /// next page; retries the last page when it failed.
    ///
    /// Returns at once; what it returns awaits the load: `let items = try await issues.fetchNextPage().value`.
    ///
    /// - Returns: the load, whose `value` is the items of every loaded page once it is done (the load in flight
    ///   joined while the last page is loading; the items as they are when there is no next page). See
    ///   `StartedFetch`.
    @discardableResult
    public func fetchNextPage() -> StartedFetch<Response> {
        let (request, pages, generation) = locked.withLock { ($0.request, $0.pages, $0.generation) }
        guard let request else { return StartedFetch(loadedItems()) }
        guard let last = pages.last else { return start(request, explicitly: false) }
        let snapshot = last.query.snapshot
        if snapshot.isFetching { return listAfter(last.query.joinFetch()) }
        guard let items = snapshot.data else { return listAfter(last.query.refetch()) }
        guard !last.identifier.isLastPage(itemCount: items.count),
            let next = append(last.identifier.next(), of: request, generation: generation)
        else { return StartedFetch(loadedItems()) }
        return listAfter(next.appearStarted(()))
    }

    /// Starts again from the first page of `request`, fetching it even when a fresh copy is cached.
    ///
    /// - Returns: the load of the first page, whose `value` is its items. See `StartedFetch`.
    @discardableResult
    public func refetch(request: Request) -> StartedFetch<Response> {
        start(request, explicitly: true)
    }

    /// Marks every loaded page stale and refetches them (each page's query, if enabled).
    public func invalidate() {
        for page in pages { page.query.invalidate() }
    }

    /// Cancels the page fetches in flight; each page goes back to what it was before its fetch.
    public func cancel() {
        for page in pages { page.query.cancel() }
    }

    // MARK: - Actions

    private var pages: [Page] {
        locked.withLock { $0.pages }
    }

    /// The list's snapshot: the first page's while it has nothing to show, then the items of every page up
    /// to the first one without data.
    private func listSnapshot() -> QuerySnapshot<Response> {
        let (request, pages) = locked.withLock { ($0.request, $0.pages) }
        let key = request.map { keyAdapter?(baseKey, $0) ?? baseKey } ?? baseKey
        guard let first = pages.first else { return .empty(key: key) }
        let head = first.query.observation.snapshot
        guard var items = head.data else {
            return QuerySnapshot(
                key: key, data: nil, error: head.error, status: head.status, fetchStatus: head.fetchStatus,
                dataUpdatedAt: nil, isStale: head.isStale, isPlaceholderData: false,
                failureCount: head.failureCount, isRestored: head.isRestored)
        }
        var (last, showsAll, isStale, oldest) = (head, true, head.isStale, head.dataUpdatedAt)
        var fetchStatus = head.fetchStatus
        for page in pages.dropFirst() {
            last = page.query.observation.snapshot
            isStale = isStale || last.isStale
            if last.fetchStatus == .fetching || fetchStatus == .idle { fetchStatus = last.fetchStatus }
            guard showsAll, let more = last.data else {
                showsAll = false
                continue
            }
            items.append(contentsOf: more)
            oldest = [oldest, last.dataUpdatedAt].compactMap { $0 }.min()
        }
        return QuerySnapshot(
            key: key, data: items, error: last.error, status: .success, fetchStatus: fetchStatus,
            dataUpdatedAt: oldest, isStale: isStale, isPlaceholderData: false, failureCount: last.failureCount,
            isRestored: head.isRestored)
    }

    private func start(_ request: Request, explicitly: Bool) -> StartedFetch<Response> {
        let generation = locked.withLock { state -> UInt64 in
            state.request = request
            state.pages = []
            state.generation += 1
            return state.generation
        }
        let first = append(firstPage, of: request, generation: generation)
        changed()
        guard let first else { return StartedFetch(loadedItems()) }
        return listAfter(explicitly ? first.refetch() : first.appearStarted(()))
    }

    /// Adds the page `identifier` of `request` unless a newer start replaced the pages meanwhile; the caller
    /// starts its fetch.
    private func append(
        _ identifier: PageIdentifier, of request: Request, generation: UInt64
    ) -> Query<Void, Response>? {
        let pageKey = (keyAdapter?(baseKey, request) ?? baseKey).appending(identifier.keyPart)
        let fetcher = fetcher
        let query = Query<Void, Response>(
            key: pageKey, behavior: .startWhenRequested, options: options, cache: cache, cacheConfig: cacheConfig,
            client: client
        ) { try await fetcher(request, identifier) }
        let subscription = query.snapshotPublisher.sink { [weak self] _ in self?.changed() }
        let isCurrent = locked.withLock { state -> Bool in
            guard state.generation == generation, !state.pages.contains(where: { $0.identifier == identifier })
            else { return false }
            state.pages.append(Page(identifier: identifier, query: query, subscription: subscription))
            return true
        }
        guard isCurrent else { return nil }
        changed()
        return query
    }

    /// A page's load, shown as the list's items once it is done.
    private func listAfter(_ page: StartedFetch<Response>) -> StartedFetch<Response> {
        page.map { [weak self] items in (try? self?.loadedItems().get()) ?? items }
    }

    /// The items of every page that holds data, in order, up to the first that holds none (as `state` shows
    /// them, before `select`); `QueryError.disabled` when the first page holds none.
    private func loadedItems() -> Result<Response, any Error> {
        var items: Response?
        for page in pages {
            guard let more = try? client.getQueryData(page.query.key, as: Response.self) else { break }
            items = (items ?? Response()) + more
        }
        guard let items else { return .failure(QueryError.disabled(key: baseKey)) }
        return .success(items)
    }

    private func changed() {
        view.changed()
    }
}

extension PaginatedQuery: ObservableQueryState {}

extension PaginatedQuery where Request == Void {
    /// Starts again from the first page.
    ///
    /// - Returns: the load of the first page, whose `value` is its items. See `StartedFetch`.
    @discardableResult
    public func refetch() -> StartedFetch<Response> {
        refetch(request: ())
    }
}
