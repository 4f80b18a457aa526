import Observation

/// An observable object for one piece of server state: it fetches, caches (in its `QueryClient`), shares and
/// refreshes the `Response` of a `Request`.
///
/// ```swift
/// let user = Query<Int, User>(
///     key: "user",
///     keyAdapter: { key, id in key.appending(id) },
///     behavior: .startImmediately(42)
/// ) { id in try await api.user(id) }
/// let subscription = user.statePublisher.sink { print($0) }
/// ```
///
/// **Behavior**
/// - State changes are delivered on the client's delivery scheduler (default: at once, on the thread that
///   changed the entry); `state` and `snapshot` are readable from any thread.
/// - One fetch per key however many queries, consumers and `fetchQuery` callers ask at once. An explicit
///   `refetch` of a key that has data cancels the fetch in flight and starts a new one; triggers (appear,
///   invalidation, polling) join it.
/// - A failed refetch keeps the last good data in `state` (`.succeed(old)`); the error is in `snapshot`.
/// - An `Equatable` value equal to the old one notifies nobody (structural sharing).
/// - `enabled: false` stops every automatic fetch (appear, invalidation, focus, reconnect, polling, bulk
///   refetches); `refetch` still fetches. `setEnabled(_:)` changes it on a live query.
/// - Focus regained and network back refetch as `refetchOnFocus` and `refetchOnReconnect` say; polling pauses
///   while unfocused unless `refetchIntervalInBackground`; offline, fetches pause as `networkMode` says.
/// - Observable: SwiftUI re-renders from `state` and `snapshot` directly.
/// - When released, the query leaves its cache entry (which may then be garbage-collected after `gcTime`)
///   and its polling stops. Its own subscriptions and timers do not keep it alive.
public final class Query<Request: Sendable, Response: Sendable>: Sendable {
    /// The fetcher of a query: the request in, the response out.
    public typealias Fetcher = @Sendable (Request) async throws -> Response

    struct State: Sendable {
        var request: Request?
        /// The interval of the polling chain that runs; nil when none does.
        var pollInterval: Duration?
        /// The input this query follows (`follow(_:request:)`), cancelled when the query goes.
        var input: Subscription?
    }

    /// The key given at creation; with a key adapter, each request's key is derived from it.
    public let baseKey: QueryKey
    /// The client whose cache holds the data.
    public let client: QueryClient
    let keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)?
    let fetcher: Fetcher
    let persistence: EntryPersistence?
    @usableFromInline let observation: QueryObservation<Response, Response>
    let pollTimer: TimerKey
    /// Internal for the extensions in the files beside this one.
    let locked = Locked(State())

    /// Makes a query.
    ///
    /// - Parameters:
    ///   - key: the key of the data; with `keyAdapter`, the base of each request's key.
    ///   - keyAdapter: makes a request's key (`{ key, id in key.appending(id) }`), so each request has its own
    ///     cache entry. Default: every request shares `key`.
    ///   - behavior: `.startImmediately(request)` fetches at once; `.startWhenRequested` (default) waits for
    ///     `refetch(request:)`.
    ///   - pollingBehavior: `.pollEvery(interval)` refetches on a timer; it is written into the options'
    ///     `pollingBehavior`, so `setOptions(_:)` can change it. Default: the options', then the defaults'
    ///     (`.noPolling`).
    ///   - options: freshness, retries, `enabled`, `select`, placeholder and initial data… Default: the client's.
    ///   - cache: the persistent cache of this query's data (a `Codable` `Response` only). Default: the
    ///     client's, which defaults to the global one, which is none until configured.
    ///   - cacheConfig: how the persistent cache is used. Default: the client's.
    ///   - client: the cache. Default `QueryClient.shared`.
    ///   - fetcher: fetches the response of a request; it may throw, and is cancelled when the fetch is.
    public init(
        key: QueryKey,
        keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)? = nil,
        behavior: QueryBehavior<Request> = .startWhenRequested,
        pollingBehavior: PollingBehavior? = nil,
        options: QueryOptions<Response> = QueryOptions(),
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        client: QueryClient = .shared,
        fetcher: @escaping Fetcher
    ) {
        var options = options
        if let pollingBehavior { options.pollingBehavior = pollingBehavior }
        self.baseKey = key
        self.keyAdapter = keyAdapter
        self.client = client
        self.fetcher = fetcher
        pollTimer = client.context.timers.makeKey()
        persistence = client.persistence(for: Response.self, cache: cache, config: cacheConfig, key: key)
        observation = QueryObservation(client: client, options: options, key: key, project: nil)
        observation.setCallbacks(
            ObserverCallbacks(
                refetch: { [weak self] reason in self?.triggeredFetch(reason) },
                refetchWithRequest: { [weak self] request in
                    guard let self, let request = request as? Request else { return false }
                    refetch(request: request)
                    return true
                }))
        switch behavior {
        case .startImmediately(let request):
            locked.withLock { $0.request = request }
            appear(request)
        case .startWhenRequested:
            if keyAdapter == nil { attach(to: key) }
        }
    }

    /// Makes a query whose fetcher returns a publisher (Pigeon's shape); the first value is the response.
    ///
    /// - Throws (through the state): the publisher's failure, or `QueryError.emptyResponse` when it finishes
    ///   without a value.
    public convenience init(
        key: QueryKey,
        keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)? = nil,
        behavior: QueryBehavior<Request> = .startWhenRequested,
        pollingBehavior: PollingBehavior? = nil,
        options: QueryOptions<Response> = QueryOptions(),
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        client: QueryClient = .shared,
        fetcher: @escaping @Sendable (Request) -> AnyPublisher<Response, any Error>
    ) {
        self.init(
            key: key, keyAdapter: keyAdapter, behavior: behavior, pollingBehavior: pollingBehavior, options: options,
            cache: cache, cacheConfig: cacheConfig, client: client
        ) { request in
            for try await value in fetcher(request).values { return value }
            throw QueryError.emptyResponse(key: key)
        }
    }

    deinit {
        client.context.timers.cancel(pollTimer)
        observation.close()
    }

    // MARK: - Options

    /// The options of this query.
    public var options: QueryOptions<Response> {
        observation.options
    }

    /// The polling of this query: its options', else its key's defaults'.
    public var pollingBehavior: PollingBehavior {
        observation.resolved.pollingBehavior
    }

    /// Replaces the options of this live query: freshness, triggers, `select`, placeholder… take effect at
    /// once; a query enabled by the change fetches as if it appeared; a new polling interval restarts the timer
    /// from now (`.noPolling` stops it).
    public func setOptions(_ options: QueryOptions<Response>) {
        let wasEnabled = observation.resolved.isEnabled
        observation.setOptions(options)
        let isEnabled = observation.resolved.isEnabled
        // A `Void` request needs no `refetch(request:)` to be known.
        if isEnabled, !wasEnabled, let request = locked.withLock({ $0.request }) ?? (() as? Request) {
            appear(request)
        }
        restartPolling()
    }

    /// Enables or disables this live query (`QueryOptions.enabled`); enabling it fetches as if it appeared.
    public func setEnabled(_ isEnabled: Bool) {
        var options = options
        options.enabled = isEnabled
        setOptions(options)
    }

    // MARK: - State

    /// What to show: idle, loading (nothing to show yet), failed (nothing to show), or the value.
    @inlinable
    public var state: QueryState<Response> {
        observation.value.read { $0.unwrap(as: SnapshotBox<Response>.self).state }
    }

    /// The full picture: data, error, status, fetch status, times, staleness (computed now), failure count.
    @inlinable
    public var snapshot: QuerySnapshot<Response> {
        observation.value.read { $0.unwrap(as: SnapshotBox<Response>.self).snapshot }
    }

    /// The key of the current request (the base key before the first request).
    public var key: QueryKey {
        observation.key
    }

    /// Every change of `state`, starting with the current one.
    public var statePublisher: AnyPublisher<QueryState<Response>, Never> {
        observation.statePublisher
    }

    /// Every new value (after `select`), starting with the current one if there is one.
    public var valuePublisher: AnyPublisher<Response, Never> {
        observation.valuePublisher
    }

    /// Every change of the snapshot, starting with the current one.
    public var snapshotPublisher: AnyPublisher<QuerySnapshot<Response>, Never> {
        observation.snapshots
    }

    // MARK: - Fetching

    /// Fetches `request` now: its key becomes the query's key. On a key that already has data, a fetch in
    /// flight is cancelled and a new one started. Works even when the query is disabled.
    ///
    /// Returns at once; what it returns awaits the fetch: `let issues = try await query.refetch(request: "open").value`.
    ///
    /// - Returns: the fetch started, whose `value` is its result (see `StartedFetch`).
    @discardableResult
    public func refetch(request: Request) -> StartedFetch<Response> {
        awaited(QueryStart(request, reason: .manual, intent: .explicit, becomesCurrent: true))
    }

    /// The response for `request`: the cached value when fresh, else the result of a fetch (joining one in
    /// flight). The request becomes the query's current one.
    ///
    /// The fetch retries as the query's `retry` says (by default 3 times, 1 s, 2 s and 4 s apart, unlike
    /// `QueryClient.fetchQuery`, which does not retry unless told); a command-line tool that wants the first
    /// error at once gives its client `QueryDefaults(retry: .never)`.
    ///
    /// - Throws: the fetcher's error once retries are exhausted, or `QueryError.cancelled`.
    public func value(for request: Request) async throws -> Response {
        locked.withLock { $0.request = request }
        while true {
            let context = attach(to: key(for: request))
            let intent = FetchIntent.ifStale(context.resolved.staleTime)
            do {
                let value = try await context.entry.fetchValue(
                    fetchRequest(request, reason: .manual, context.resolved), intent, observer: context.observerID)
                return try cast(value, to: Response.self, key: context.entry.key)
            } catch is EntryRemovedError {
                // Removed between attaching and the request: the query follows the key to its next entry.
            }
        }
    }

    /// Marks this query's key stale and refetches it if the query is enabled.
    public func invalidate() {
        client.invalidateQueries(key, exact: true)
    }

    /// Cancels this key's fetch in flight; the state goes back to what it was before the fetch.
    public func cancel() {
        client.cancelQueries(key, exact: true)
    }

    // MARK: - Actions

    /// The query appeared with `request`: the entry decides whether to fetch (no data; stale data and
    /// `refetchOnAppear`; a restored value under `.useAndThenFetch`; never while disabled).
    private func appear(_ request: Request) {
        start(QueryStart(request, reason: .appear, intent: nil, becomesCurrent: false))
    }

    /// The entry asks for a refetch (invalidation, bulk refetch, focus, reconnect): an invalidation replaces a
    /// fetch in flight, a trigger joins it (`FetchIntent(refetchingFor:)`).
    private func triggeredFetch(_ reason: FetchReason) {
        guard let request = locked.withLock({ $0.request }) else { return }
        fetch(request, reason: reason, intent: FetchIntent(refetchingFor: reason))
    }

    /// Makes this query depend on another one's data: each value of `input` gives the request to fetch with
    /// (nil: not yet, or not any more). Until the first request the query does not fetch: it is pending and
    /// idle, never loading.
    ///
    /// ```swift
    /// let user = Query<Int, User>(key: "user", keyAdapter: { $0.appending($1) }, behavior: .startImmediately(42)) {
    ///     try await api.user($0)
    /// }
    /// let projects = Query<Int, [Project]>(key: "projects", keyAdapter: { $0.appending($1) }) {
    ///     try await api.projects(team: $0)
    /// }
    /// projects.follow(user.valuePublisher) { user in user.teamID }
    /// ```
    ///
    /// A new request fetches as a query appearing with it would: a fresh cached value is used as it is. The
    /// query holds the subscription (a later call replaces it) and cancels it when released.
    public func follow<Input: Publisher>(
        _ input: Input, request: @escaping @Sendable (Input.Output) -> Request?
    ) where Input.Failure == Never {
        let subscription = input.sink { [weak self] value in
            guard let self, let next = request(value) else { return }
            locked.withLock { $0.request = next }
            appear(next)
        }
        locked.withLock { $0.input = subscription }
    }

    /// Makes `request` the one that triggers (invalidation, polling) refetch with, without fetching.
    package func setCurrentRequest(_ request: Request) {
        locked.withLock { $0.request = request }
    }

    /// Fetches `request` without making it the query's current request (an infinite query's page fetches);
    /// the entry decides, from `intent`, whether to start, join or replace a fetch.
    package func fetch(_ request: Request, reason: FetchReason, intent: FetchIntent) {
        start(QueryStart(request, reason: reason, intent: intent, becomesCurrent: false, polls: false))
    }

    /// `fetch(_:reason:intent:)`, returning what the entry answered for a caller who awaits it.
    package func fetchStarted(_ request: Request, reason: FetchReason, intent: FetchIntent) -> StartedFetch<Response> {
        awaited(QueryStart(request, reason: reason, intent: intent, becomesCurrent: false, polls: false))
    }

    /// Makes `request` the current one and fetches it as a query appearing with it does (a fresh cached value
    /// answers); returns what the entry answered, for a caller who awaits it.
    package func appearStarted(_ request: Request) -> StartedFetch<Response> {
        awaited(QueryStart(request, reason: .appear, intent: nil, becomesCurrent: true))
    }

    /// The fetch in flight of the current key, for a caller who awaits it (with none: the data it holds).
    package func joinFetch() -> StartedFetch<Response> {
        let entry = observation.fetchContext(for: key).entry
        return StartedFetch(entry.joinFetch(), key: entry.key)
    }

}

extension Query: ObservableQueryState {}
