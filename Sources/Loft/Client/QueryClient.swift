import Dispatch

/// A cache scope: one entry per `QueryKey` (data, error, statuses, the fetch in flight, observers, timers).
///
/// ```swift
/// let client = QueryClient()
/// let user = try await client.fetchQuery(["users", 42]) { try await api.user(42) }
/// client.setQueryData(user, for: ["users", 42])
/// await client.invalidateQueries(["users"])
/// ```
///
/// **Behavior**
/// - All time (freshness, garbage collection, retries, polling) is read from `scheduler`; a test passes a
///   `TestScheduler` and advances it.
/// - Bulk operations (invalidate, refetch, remove, reset, cancel, isFetching) take a key prefix and `exact:`;
///   they find the matching entries through a prefix index, never by scanning every key.
/// - `events` reports every entry added, updated or removed and every fetch started or finished, with why.
/// - Thread-safe; no lock is held while a fetcher, an observer or a subscriber runs.
public final class QueryClient: Sendable {
    /// The client used by queries created without `client:`. Tests make their own.
    public static let shared = QueryClient()

    private struct State: Sendable {
        var entries: [QueryKey: QueryCacheEntry] = [:]
        var index = KeyIndex()
        var runningMutations = 0
    }

    /// The options every query of this client starts from.
    public let defaults: QueryDefaults
    /// The clock and timer queue of every time-based behaviour.
    public let scheduler: any Scheduler
    /// Where state changes are delivered to queries (default: immediately, on the thread that changed them).
    public let deliveryScheduler: any Scheduler
    private let explicitCache: (any QueryCacheType)?
    private let explicitCacheConfig: QueryCacheConfig?

    /// The persistent cache of this client's queries that name none: the one given at creation, else the
    /// global one (read when a query is made, so a client made before `QueryPersistenceDefaults.configure`
    /// still sees it).
    public var cache: (any QueryCacheType)? {
        explicitCache ?? QueryPersistenceDefaults.cache
    }

    /// How this client's queries use their persistent cache when they say nothing: the configuration given at
    /// creation, else the global one.
    public var cacheConfig: QueryCacheConfig {
        explicitCacheConfig ?? QueryPersistenceDefaults.config
    }
    private let state = Locked(State())
    package let context: ClientContext

    /// Makes a client.
    ///
    /// - Parameters:
    ///   - cache: the persistent cache of queries that name none (default: `QueryPersistenceDefaults.cache`,
    ///     which is none until configured). Only `Codable` values are persisted.
    ///   - cacheConfig: how queries use it when they say nothing (default: `QueryCacheConfig.global`).
    ///   - defaults: the options every query starts from (TanStack Query's defaults).
    ///   - scheduler: the clock and timers (default: a real-time dispatch queue).
    ///   - deliveryScheduler: where queries deliver state changes (default: immediately).
    public init(
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        defaults: QueryDefaults = QueryDefaults(),
        scheduler: any Scheduler = DispatchQueue(label: "loft.client.timers"),
        deliveryScheduler: any Scheduler = ImmediateScheduler.shared
    ) {
        self.defaults = defaults
        self.scheduler = scheduler
        self.deliveryScheduler = deliveryScheduler
        explicitCache = cache
        explicitCacheConfig = cacheConfig
        context = ClientContext(
            scheduler: scheduler, tracker: WorkTracker(), events: PassthroughSubject(), defaultGCTime: defaults.gcTime)
        context.setCollector { [weak self] entry in self?.collect(entry) }
    }

    /// Every change of this client's cache, for devtools, loggers and tests.
    public var events: AnyPublisher<QueryCacheEvent, Never> {
        context.events.eraseToAnyPublisher()
    }

    // MARK: - Entries

    /// The entry of `key`, created (and announced) when missing.
    package func entry(for key: QueryKey) -> QueryCacheEntry {
        let (entry, isNew) = state.withLock { state -> (QueryCacheEntry, Bool) in
            if let existing = state.entries[key] { return (existing, false) }
            let entry = QueryCacheEntry(key: key, context: context)
            state.entries[key] = entry
            state.index.insert(key)
            return (entry, true)
        }
        if isNew { context.events.send(.added(key)) }
        return entry
    }

    /// The entry of `key` if there is one.
    package func existingEntry(for key: QueryKey) -> QueryCacheEntry? {
        state.withLock { $0.entries[key] }
    }

    /// The entries under `prefix` (or exactly `prefix`), found through the prefix index.
    package func entries(matching prefix: QueryKey, exact: Bool) -> [QueryCacheEntry] {
        state.withLock { state in
            state.index.keys(withPrefix: prefix, exact: exact).compactMap { state.entries[$0] }
        }
    }

    /// Every entry, for the inspector.
    package var allEntries: [QueryCacheEntry] {
        state.withLock { Array($0.entries.values) }
    }

    /// How values of `Value` are persisted: with `cache` and `config` when given, else the client's; nil when
    /// there is no cache. A cache given for a type that is not `Codable` is reported on `events` once.
    package func persistence<Value: Sendable>(
        for type: Value.Type, cache explicitCache: (any QueryCacheType)? = nil, config: QueryCacheConfig? = nil,
        key: QueryKey
    ) -> EntryPersistence? {
        guard let cache = explicitCache ?? cache else { return nil }
        let persistence = EntryPersistence.make(Value.self, cache: cache, config: config ?? cacheConfig)
        if persistence == nil, explicitCache != nil {
            context.events.send(.persistenceFailed(key, error: CacheError.notCodable(key: key, type: "\(Value.self)")))
        }
        return persistence
    }

    private func collect(_ entry: QueryCacheEntry) {
        remove(entry)
    }

    private func remove(_ entry: QueryCacheEntry) {
        let removed = state.withLock { state -> Bool in
            guard state.entries[entry.key] === entry else { return false }
            state.entries[entry.key] = nil
            state.index.remove(entry.key)
            return true
        }
        guard removed else { return }
        entry.markRemoved()
        context.events.send(.removed(entry.key))
    }

    // MARK: - Reading and writing data

    /// The cached data of `key` as a `T`, or nil when there is none.
    ///
    /// - Throws: `QueryError.typeMismatch` when the cached value is not a `T`.
    public func getQueryData<T: Sendable>(_ key: QueryKey, as type: T.Type = T.self) throws -> T? {
        guard let data = existingEntry(for: key)?.data else { return nil }
        return try cast(data, to: T.self, key: key)
    }

    /// Stores `value` as the fresh data of `key` (created if missing); observers are notified unless the value
    /// equals the old one.
    public func setQueryData<T: Sendable>(_ value: T, for key: QueryKey) {
        entry(for: key).setData(value, updatedAt: scheduler.now, structuralSharing: defaults.structuralSharing)
    }

    /// Replaces the data of `key` with `updater(old)`; a nil result leaves it unchanged.
    ///
    /// - Throws: `QueryError.typeMismatch` when the cached value is not a `T`.
    public func setQueryData<T: Sendable>(for key: QueryKey, updater: (T?) -> T?) throws {
        let old: T? = try getQueryData(key)
        guard let new = updater(old) else { return }
        setQueryData(new, for: key)
    }

    /// Applies `updater` to the data of every entry under `prefix` that holds a `T`: update one entity wherever
    /// it is cached (its detail, and each list that contains it).
    ///
    /// - Returns: the keys whose data changed.
    @discardableResult
    public func setQueriesData<T: Sendable>(
        matching prefix: QueryKey, exact: Bool = false, as type: T.Type = T.self, updater: (T) -> T
    ) -> [QueryKey] {
        let now = scheduler.now
        return entries(matching: prefix, exact: exact).compactMap { entry in
            guard let old = entry.snapshot.data as? T else { return nil }
            let changed = entry.setData(updater(old), updatedAt: now, structuralSharing: defaults.structuralSharing)
            return changed ? entry.key : nil
        }
    }

    /// The typed snapshot of `key`: data, error, statuses, times, staleness (with the client's `staleTime`).
    ///
    /// - Throws: `QueryError.typeMismatch` when the cached value is not a `T`.
    public func snapshot<T: Sendable>(for key: QueryKey, as type: T.Type = T.self) throws -> QuerySnapshot<T> {
        let entry = existingEntry(for: key)?.snapshot ?? EntrySnapshot()
        return try QuerySnapshot(key: key, entry: entry, staleTime: defaults.staleTime, now: scheduler.now)
    }

    // MARK: - Fetching

    /// Returns the data of `key`: the cached value when fresh, else the result of a fetch (joining one in
    /// flight).
    ///
    /// - Parameters:
    ///   - staleTime: how old cached data may be (default: the client's, 0).
    ///   - retry: the retry policy of this fetch (default: the client's).
    ///   - fetcher: produces the value.
    /// - Throws: the fetcher's error once retries are exhausted, `QueryError.cancelled`, or
    ///   `QueryError.typeMismatch` when the cached value is not a `T`.
    public func fetchQuery<T: Sendable>(
        _ key: QueryKey,
        staleTime: Duration? = nil,
        retry: RetryPolicy? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await fetch(key, staleTime: staleTime, retry: retry, reason: .manual, fetcher: fetcher)
    }

    /// Fetches `key` into the cache unless fresh data is there; never throws (a failure is in the snapshot).
    public func prefetchQuery<T: Sendable>(
        _ key: QueryKey,
        staleTime: Duration? = nil,
        retry: RetryPolicy? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async {
        _ = try? await fetch(key, staleTime: staleTime, retry: retry, reason: .prefetch, fetcher: fetcher)
    }

    /// Returns the cached data of `key` whatever its age, fetching only when there is none.
    ///
    /// - Throws: as `fetchQuery`.
    public func ensureQueryData<T: Sendable>(
        _ key: QueryKey,
        retry: RetryPolicy? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        if let cached: T = try getQueryData(key) { return cached }
        return try await fetch(key, staleTime: nil, retry: retry, reason: .prefetch, fetcher: fetcher)
    }

    private func fetch<T: Sendable>(
        _ key: QueryKey,
        staleTime: Duration?,
        retry: RetryPolicy?,
        reason: FetchReason,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let entry = entry(for: key)
        if let persistence = persistence(for: T.self, key: key) {
            entry.adoptPersistence(persistence)
            entry.restoreFromPersistence()
        }
        let snapshot = entry.snapshot
        if let data = snapshot.data, !snapshot.isStale(at: scheduler.now, staleTime: staleTime ?? defaults.staleTime) {
            return try cast(data, to: T.self, key: key)
        }
        let request = FetchRequest(
            fetch: { try await fetcher() },
            retry: retry ?? defaults.retry,
            structuralSharing: defaults.structuralSharing,
            reason: snapshot.data == nil && reason == .manual ? .firstUse : reason,
            cancelsInFlight: false
        )
        return try cast(try await entry.fetchValue(request), to: T.self, key: key)
    }

    // MARK: - Bulk operations

    /// Marks every entry under `prefix` stale and refetches those that `refetchType` names (default: the ones
    /// with an enabled observer).
    public func invalidateQueries(_ prefix: QueryKey, exact: Bool = false, refetchType: RefetchType = .active) {
        for entry in entries(matching: prefix, exact: exact) {
            let isActive = entry.invalidate()
            switch (refetchType, isActive) {
            case (.active, true), (.all, true):
                entry.refetch(reason: .invalidation, includingInactive: false)
            case (.inactive, false), (.all, false):
                entry.refetch(reason: .invalidation, includingInactive: true)
            default:
                break
            }
        }
    }

    /// Refetches every entry under `prefix` that has an enabled observer (or, with `includingInactive`, also
    /// the others that were fetched before).
    public func refetchQueries(_ prefix: QueryKey, exact: Bool = false, includingInactive: Bool = false) {
        for entry in entries(matching: prefix, exact: exact) {
            entry.refetch(reason: .manual, includingInactive: includingInactive)
        }
    }

    /// Removes every entry under `prefix` from the cache (a fetch in flight is cancelled). Observers see
    /// nothing more from the removed entry.
    public func removeQueries(_ prefix: QueryKey, exact: Bool = false) {
        for entry in entries(matching: prefix, exact: exact) {
            entry.cancelFetch()
            remove(entry)
        }
    }

    /// Puts every entry under `prefix` back to its initial state (no data, no error), then refetches the
    /// active ones.
    public func resetQueries(_ prefix: QueryKey, exact: Bool = false) {
        for entry in entries(matching: prefix, exact: exact) {
            entry.reset()
            entry.refetch(reason: .manual, includingInactive: false)
        }
    }

    /// Cancels the fetches in flight under `prefix`; each entry goes back to its state from before the fetch.
    public func cancelQueries(_ prefix: QueryKey, exact: Bool = false) {
        for entry in entries(matching: prefix, exact: exact) {
            entry.cancelFetch()
        }
    }

    /// How many entries under `prefix` have a fetch in flight.
    public func isFetching(_ prefix: QueryKey = QueryKey(parts: []), exact: Bool = false) -> Int {
        entries(matching: prefix, exact: exact).filter(\.isFetching).count
    }

    /// Refetches the observers of every entry under `prefix` with `request` instead of their last one (a
    /// mutation's `.newData(request)`); observers whose request type differs are left alone.
    public func refetchQueries(_ prefix: QueryKey, exact: Bool = false, withRequest request: any Sendable) {
        for entry in entries(matching: prefix, exact: exact) {
            entry.refetch(withRequest: request)
        }
    }

    /// How many mutations of this client are running.
    public func isMutating() -> Int {
        state.withLock { $0.runningMutations }
    }

    package func mutationStarted() {
        state.withLock { $0.runningMutations += 1 }
    }

    package func mutationEnded() {
        state.withLock { $0.runningMutations -= 1 }
    }

    /// Removes every entry and cancels every fetch.
    public func clear() {
        removeQueries(QueryKey(parts: []))
    }

    /// Returns once no fetch or other tracked work is running (retries waiting on the scheduler do not count).
    /// Tests use it as a barrier instead of sleeping.
    public func waitUntilIdle() async {
        await context.tracker.waitUntilIdle()
    }
}
