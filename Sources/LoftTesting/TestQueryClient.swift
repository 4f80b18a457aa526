import Testing

/// A `QueryClient` for tests: on a virtual-time `TestScheduler`, with focus and network under the test's
/// control, its cache events recorded, and awaitable conditions instead of sleeps.
///
/// ```swift
/// let test = TestQueryClient()
/// let fetcher = ScriptedFetcher<Void, [String]>(.answer(["Ada"]))
/// let users = Query(key: "users", behavior: .startImmediately(()), client: test.client, fetcher: fetcher.fetch)
/// await test.until { users.state.value != nil }
/// await test.advance(by: .seconds(60))   // timers due run, then the work they woke
/// ```
///
/// **Behavior**
/// - Time moves only when the test says so (`advance(by:)`); every timer of the client (staleness, garbage
///   collection, polling, retry back-off) runs on that clock, in deadline order.
/// - Queries do not retry (`QueryDefaults.testing`): a failing fetcher fails at its first attempt, so a test
///   sees the error at once instead of after the back-offs. A query's own `retry`, or a `retry` in the
///   `defaults` given, still wins.
/// - Starts focused and online unless told otherwise; `setFocused(_:)` and `setOnline(_:)` act as the app's
///   and the network's changes do. It never follows the host's signals (`QueryClient.follow(_:)`): focus,
///   network and time are the test's.
/// - `events` records every cache and mutation event from the start; `fetchReasons(for:)` reads why each
///   fetch of a key happened.
/// - The conditions (`until`, `waitUntilIdle`) never sleep: they wait for the client's events and idleness.
public final class TestQueryClient: Sendable {
    /// The virtual clock of the client.
    public let scheduler: TestScheduler
    /// The client under test: give it to the queries, consumers and mutations of the test.
    public let client: QueryClient
    /// Every event of the client since it was made.
    public let events: PublisherRecorder<QueryCacheEvent>

    /// Makes a client on a new `TestScheduler` (which starts at `TestScheduler.epoch`).
    ///
    /// - Parameters:
    ///   - defaults: the client's query defaults, over `QueryDefaults.testing` (a field they set wins).
    ///     Default: TanStack Query's, but no retries.
    ///   - cache: the persistent cache. Default: none (the global one, when set).
    ///   - cacheConfig: how it is used. Default: the global one.
    ///   - isFocused: whether the app starts focused. Default true.
    ///   - isOnline: whether the network starts online. Default true.
    ///   - memoryBudget: what the client keeps in memory at most. Default none.
    public convenience init(
        defaults: QueryDefaults = QueryDefaults(), cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil, isFocused: Bool = true, isOnline: Bool = true,
        memoryBudget: MemoryBudget? = nil
    ) {
        let scheduler = TestScheduler()
        self.init(
            scheduler: scheduler,
            client: QueryClient(
                cache: cache, cacheConfig: cacheConfig, defaults: .testing.merging(defaults), scheduler: scheduler,
                isFocused: isFocused, isOnline: isOnline, memoryBudget: memoryBudget))
    }

    /// Makes a client on a new `TestScheduler` whose queries persist in a network cache (such as a
    /// `TestNetworkCache`); the other parameters are those of `init(defaults:cache:...)`.
    public convenience init(
        defaults: QueryDefaults = QueryDefaults(), cache: any AsyncQueryCacheType,
        cacheConfig: QueryCacheConfig? = nil, isFocused: Bool = true, isOnline: Bool = true
    ) {
        let scheduler = TestScheduler()
        self.init(
            scheduler: scheduler,
            client: QueryClient(
                cache: cache, cacheConfig: cacheConfig, defaults: .testing.merging(defaults), scheduler: scheduler,
                isFocused: isFocused, isOnline: isOnline))
    }

    private init(scheduler: TestScheduler, client: QueryClient) {
        self.scheduler = scheduler
        self.client = client
        events = PublisherRecorder(client.events)
    }

    /// Advances the clock by `duration` (running every timer due, in deadline order), then waits until the
    /// work those timers woke has run.
    public func advance(by duration: Duration) async {
        scheduler.advance(by: duration)
        await client.waitUntilIdle()
    }

    /// Returns once no fetch, save or other tracked work runs (retries waiting on the clock and fetches paused
    /// for the network do not count).
    public func waitUntilIdle() async {
        await client.waitUntilIdle()
    }

    /// Returns once `condition` holds, or records a failure after `timeout` (`QueryClient.until(timeout:_:)`).
    @discardableResult
    public func until(
        timeout: Duration = .seconds(30), fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column,
        _ condition: () -> Bool
    ) async -> Bool {
        await client.until(
            timeout: timeout, fileID: fileID, filePath: filePath, line: line, column: column, condition)
    }

    /// Tells the client whether the app is focused (`QueryClient.setFocused(_:)`).
    public func setFocused(_ isFocused: Bool) {
        client.setFocused(isFocused)
    }

    /// Tells the client whether the network is online (`QueryClient.setOnline(_:)`).
    public func setOnline(_ isOnline: Bool) {
        client.setOnline(isOnline)
    }

    /// Why each fetch of `key` started so far, in order (`QueryCacheEvent.fetchStarted`).
    public func fetchReasons(for key: QueryKey) -> [FetchReason] {
        events.values.compactMap {
            if case .fetchStarted(let eventKey, let reason) = $0, eventKey == key { return reason }
            return nil
        }
    }
}

extension QueryDefaults {
    /// The defaults a `TestQueryClient` starts from: TanStack Query's, but no retries (`retry: .never`), as
    /// TanStack's testing guide advises: a failing fetch fails the test at once.
    public static var testing: QueryDefaults {
        QueryDefaults(retry: .never)
    }
}
