import Dispatch
import Synchronization

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
/// - Bulk operations (invalidate, refetch, remove, reset, cancel, isFetching) take a key prefix, `exact:` and
///   a `QueryFilter`; they find the matching entries through a prefix index, never by scanning every key (the index is made by
///   the first lookup under a prefix, in one pass; a client used by key alone keeps none).
/// - `setFocused(_:)` and `setOnline(_:)` drive the focus and reconnect triggers and resume paused fetches.
/// - `events` reports every entry added, updated or removed and every fetch started or finished, with why.
/// - Thread-safe; no lock is held while a fetcher, an observer or a subscriber runs.
public final class QueryClient: Sendable {
    /// The client used by queries created without `client:`. Tests make their own.
    public static let shared = QueryClient()

    struct State: Sendable {
        var entries = EntryTable()
        /// The keys by prefix, made by the first lookup under a prefix (one pass over the keys) and kept in step
        /// from then on: a client used by key alone (a service's `fetchQuery`) keeps none (row (i)).
        var index: KeyIndex?
        /// The tags the queries of each entry declared (`QueryOptions.tags`).
        var tags = TagIndex()
        /// Defaults by key prefix (`setQueryDefaults`).
        var prefixDefaults: [QueryKey: QueryDefaults] = [:]
        /// Observers of removed entries, to be moved to the next entry of their key when one is made.
        var orphans: [QueryKey: [@Sendable (QueryCacheEntry) -> Void]] = [:]
    }

    /// The options every query of this client starts from.
    public let defaults: QueryDefaults
    /// The clock and timer queue of every time-based behaviour.
    public let scheduler: any Scheduler
    /// Where state changes are delivered to queries (default: immediately, on the thread that changed them).
    public let deliveryScheduler: any Scheduler
    private let explicitCache: EntryPersistence.Provider?
    private let explicitCacheConfig: QueryCacheConfig?

    /// The persistent cache of this client's queries that name none: the one given at creation, else the
    /// global one (read when a query is made, so a client made before `QueryPersistenceDefaults.configure`
    /// still sees it). Nil for a client on a network cache (`networkCache`).
    public var cache: (any QueryCacheType)? {
        switch explicitCache {
        case .local(let cache): cache
        case .network: nil
        case nil: QueryPersistenceDefaults.cache
        }
    }

    /// The network cache this client was made with (`init(cache:cacheConfig:...)` with an
    /// `AsyncQueryCacheType`), if any: its queries that name no cache of their own persist there.
    public var networkCache: (any AsyncQueryCacheType)? {
        guard case .network(let cache) = explicitCache else { return nil }
        return cache
    }

    /// Where queries that name no cache persist.
    private var provider: EntryPersistence.Provider? {
        explicitCache ?? QueryPersistenceDefaults.cache.map { .local($0) }
    }

    /// How this client's queries use their persistent cache when they say nothing: the configuration given at
    /// creation, else the global one.
    public var cacheConfig: QueryCacheConfig {
        explicitCacheConfig ?? QueryPersistenceDefaults.config
    }
    let state = Locked(State())
    /// Whether `setQueryDefaults` was ever called: until then `defaults(for:)` takes no lock.
    let hasPrefixDefaults = Atomic<Bool>(false)
    package let context: ClientContext
    /// Every mutation call of this client, from submission until `gcTime` after it settled.
    package let mutationCache: MutationCache
    /// The host signals the client follows (`follow(_:)`), if any.
    let hostFollower = Locked<HostFollower?>(nil)

    /// Makes a client.
    ///
    /// - Parameters:
    ///   - cache: the persistent cache of queries that name none (default: `QueryPersistenceDefaults.cache`,
    ///     which is none until configured). Only `Codable` values are persisted.
    ///   - cacheConfig: how queries use it when they say nothing (default: `QueryCacheConfig.global`).
    ///   - defaults: the options every query starts from (TanStack Query's defaults).
    ///   - scheduler: the clock and timers (default: a real-time dispatch queue).
    ///   - deliveryScheduler: where queries deliver state changes (default: immediately).
    ///   - isFocused: whether the app starts focused (default true); see `setFocused(_:)`.
    ///   - isOnline: whether the network starts online (default true); see `setOnline(_:)`.
    ///   - memoryBudget: what the client keeps in memory at most (default none: `gcTime` alone bounds an
    ///     entry's life); see `MemoryBudget`.
    public convenience init(
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        defaults: QueryDefaults = QueryDefaults(),
        scheduler: any Scheduler = DispatchQueue(label: "loft.client.timers"),
        deliveryScheduler: any Scheduler = ImmediateScheduler.shared,
        isFocused: Bool = true,
        isOnline: Bool = true,
        memoryBudget: MemoryBudget? = nil
    ) {
        self.init(
            provider: cache.map { .local($0) }, cacheConfig: cacheConfig, defaults: defaults, scheduler: scheduler,
            deliveryScheduler: deliveryScheduler, isFocused: isFocused, isOnline: isOnline, budget: memoryBudget)
    }

    /// Makes a client whose queries persist in a cache on a network (`AsyncQueryCacheType`), which it awaits
    /// and never blocks a thread on; the other parameters are those of `init(cache:cacheConfig:defaults:...)`.
    ///
    /// Queries that name a cache of their own use theirs. The mutation journal stays local: with no
    /// `QueryPersistenceDefaults.cache`, paused mutation calls are not kept across restarts.
    public convenience init(
        cache: any AsyncQueryCacheType,
        cacheConfig: QueryCacheConfig? = nil,
        defaults: QueryDefaults = QueryDefaults(),
        scheduler: any Scheduler = DispatchQueue(label: "loft.client.timers"),
        deliveryScheduler: any Scheduler = ImmediateScheduler.shared,
        isFocused: Bool = true,
        isOnline: Bool = true,
        memoryBudget: MemoryBudget? = nil
    ) {
        self.init(
            provider: .network(cache), cacheConfig: cacheConfig, defaults: defaults, scheduler: scheduler,
            deliveryScheduler: deliveryScheduler, isFocused: isFocused, isOnline: isOnline, budget: memoryBudget)
    }

    private init(
        provider: EntryPersistence.Provider?, cacheConfig: QueryCacheConfig?, defaults: QueryDefaults,
        scheduler: any Scheduler, deliveryScheduler: any Scheduler, isFocused: Bool, isOnline: Bool,
        budget: MemoryBudget?
    ) {
        let cache: (any QueryCacheType)? =
            if case .local(let local) = provider { local } else { nil }
        self.defaults = defaults
        self.scheduler = scheduler
        self.deliveryScheduler = deliveryScheduler
        explicitCache = provider
        explicitCacheConfig = cacheConfig
        context = ClientContext(
            scheduler: scheduler, tracker: WorkTracker(), events: PassthroughSubject(), budget: budget)
        mutationCache = MutationCache(context: context, keepsSettled: budget?.mutationCalls) {
            cache ?? QueryPersistenceDefaults.cache
        }
        // The links hold the entry table and the context, not the client (see `ClientContext`); `deinit` cuts them.
        context.setCollector { [state, context] entry in
            Self.remove(entry, from: state, context: context, isCollected: true)
        }
        context.setEvictor { [state, context] entry, reason in
            Self.remove(entry, from: state, context: context, evictedFor: reason)
        }
        context.environment.update { conditions in
            conditions.isFocused = isFocused
            conditions.isOnline = isOnline
        }
    }

    /// Every change of this client's cache, for devtools, loggers and tests.
    public var events: AnyPublisher<QueryCacheEvent, Never> {
        context.events.eraseToAnyPublisher()
    }

    // MARK: - Entries

    /// The entry of `key`, created (and announced) when missing. The observers of a removed entry of `key`
    /// move to a new one.
    package func entry(for key: QueryKey) -> QueryCacheEntry {
        let (entry, isNew, orphans) = state.withLock {
            state -> (QueryCacheEntry, Bool, [@Sendable (QueryCacheEntry) -> Void]) in
            if let existing = state.entries[key] { return (existing, false, []) }
            let defaults = state.defaults(for: key, fallback: defaults)
            let entry = QueryCacheEntry(key: key, context: context, defaults: defaults)
            state.entries.insert(entry)
            state.index?.insert(key)
            context.ledger?.add(entry)
            return (entry, true, state.orphans.removeValue(forKey: key) ?? [])
        }
        if isNew {
            context.emit(.added(key))
            context.enforceBudget()
        }
        for adopt in orphans { adopt(entry) }
        return entry
    }

    /// Calls `adopt` with the next entry made for `key` (an observer of a removed entry follows its key).
    package func whenEntryIsMade(for key: QueryKey, _ adopt: @escaping @Sendable (QueryCacheEntry) -> Void) {
        let existing = state.withLock { state -> QueryCacheEntry? in
            if let existing = state.entries[key] { return existing }
            state.orphans[key, default: []].append(adopt)
            return nil
        }
        if let existing { adopt(existing) }
    }

    /// The entry of `key` if there is one.
    @usableFromInline
    package func existingEntry(for key: QueryKey) -> QueryCacheEntry? {
        state.withLock { $0.entries[key] }
    }

    /// The entries under `prefix` (or exactly `prefix`) that pass `filter`, found through the prefix index
    /// (`State.entries(matching:exact:)`).
    package func entries(
        matching prefix: QueryKey, exact: Bool, filter: QueryFilter = .all
    ) -> [QueryCacheEntry] {
        let found = state.withLock { state in state.entries(matching: prefix, exact: exact) }
        guard !filter.isTrivial else { return found }
        let now = scheduler.now
        return found.filter { filter.matches($0.info(at: now)) }
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
        // No cache anywhere, told by three checks of nil: reading the provider copies it (row (e)).
        if explicitCache == nil, self.explicitCache == nil, !QueryPersistenceDefaults.store.hasValue { return nil }
        guard let provider = explicitCache.map(EntryPersistence.Provider.local) ?? provider else { return nil }
        let persistence = EntryPersistence.make(Value.self, provider: provider, config: config ?? cacheConfig)
        if persistence == nil, explicitCache != nil {
            context.emit(.persistenceFailed(key, error: CacheError.notCodable(key: key, type: "\(Value.self)")))
        }
        return persistence
    }

    deinit {
        hostFollower.withLock { $0 }?.stop()
        context.unlink()
        mutationCache.close()
    }

    /// Removes `entry` from the cache: its fetch is cancelled, and it is gone (the next use makes a new one).
    func remove(_ entry: QueryCacheEntry) {
        Self.remove(entry, from: state, context: context)
    }

    /// `remove(_:)`, for garbage collection (`isCollected`, said by a `collected` event) and eviction (said by
    /// an `evicted` event; the machine marked the entry removed already), which reach the entry table but not
    /// the client.
    private static func remove(
        _ entry: QueryCacheEntry, from state: Locked<State>, context: ClientContext, isCollected: Bool = false,
        evictedFor reason: EvictionReason? = nil
    ) {
        let removed = state.withLock { state -> Bool in
            guard state.entries[entry.key] === entry else { return false }
            state.entries.remove(entry.key)
            state.index?.remove(entry.key)
            state.tags.remove(entry.key)
            context.ledger?.remove(entry)
            return true
        }
        guard removed else { return }
        context.timers.dropAlarms(of: entry)
        if let reason {
            context.emit(.evicted(entry.key, reason: reason))
        } else {
            entry.send(.removed)
        }
        if isCollected { context.emit(.collected(entry.key)) }
        context.emit(.removed(entry.key))
    }

    // MARK: - Reading and writing data

    /// The cached data of `key` as a `T`, or nil when there is none.
    ///
    /// - Throws: `QueryError.typeMismatch` when the cached value is not a `T`.
    @inlinable
    public func getQueryData<T: Sendable>(_ key: QueryKey, as type: T.Type = T.self) throws -> T? {
        guard let entry = existingEntry(for: key), let data = entry.data else { return nil }
        noteUse(of: entry)
        return try cast(data, to: T.self, key: key)
    }

    /// Stores `value` as the data of `key` (created if missing), fetched at `updatedAt` (default: now, so it
    /// is fresh for `staleTime` from now); observers are notified unless the value equals the old one. Data
    /// written while a fetch runs stays if that fetch is cancelled.
    public func setQueryData<T: Sendable>(_ value: T, for key: QueryKey, updatedAt: SchedulerInstant? = nil) {
        writeData(value, for: key, updatedAt: updatedAt)
        share { .setData(value, for: key) }
    }

    /// `setQueryData` without publishing a shared change: a write the client makes for itself (a streamed
    /// query's elements, which each instance streams on its own).
    package func writeData<T: Sendable>(_ value: T, for key: QueryKey, updatedAt: SchedulerInstant? = nil) {
        let entry = entry(for: key)
        noteUse(of: entry)
        persistWrites(of: T.self, to: entry)
        entry.setData(
            value, updatedAt: updatedAt ?? scheduler.now, structuralSharing: defaults(for: key).structuralSharing)
    }

    /// Gives an entry that no query persisted yet the client's persistence of `T`, so that the value written
    /// next is saved (with the client's cache and configuration).
    private func persistWrites<T: Sendable>(of type: T.Type, to entry: QueryCacheEntry) {
        guard explicitCache != nil || QueryPersistenceDefaults.cache != nil, !entry.isPersisted,
            let persistence = persistence(for: T.self, key: entry.key)
        else { return }
        entry.adoptPersistenceForWriting(persistence)
    }

    /// Replaces the data of `key` with `updater(old)` atomically: when another write lands while the updater
    /// runs, it runs again on the new data, so no update is lost. A nil result leaves the data unchanged, and
    /// on a key with no entry creates none (no `added` event, nothing to collect).
    ///
    /// - Throws: `QueryError.typeMismatch` when the cached value is not a `T`, or what `updater` throws.
    public func setQueryData<T: Sendable>(for key: QueryKey, updater: (T?) throws -> T?) throws {
        var updater = updater
        if existingEntry(for: key) == nil {
            // Asked once with no data: a nil answer makes no entry; a value is written by the entry's update,
            // which asks again only if someone wrote meanwhile.
            guard let first = try updater(nil) else { return }
            var isFirstCall = true
            let original = updater
            updater = { old in
                if isFirstCall, old == nil {
                    isFirstCall = false
                    return first
                }
                return try original(old)
            }
        }
        let structuralSharing = defaults(for: key).structuralSharing
        while true {
            let entry = entry(for: key)
            persistWrites(of: T.self, to: entry)
            // nil: the entry was removed meanwhile (collected): the write goes to the key's next entry.
            guard let isChanged = try entry.update(at: scheduler.now, structuralSharing: structuralSharing, updater)
            else { continue }
            guard isChanged, let data = entry.data else { return }
            share { .setData(data, for: key) }
            return
        }
    }

    /// Applies `updater` to the data of every entry under `prefix` that holds a `T`: update one entity wherever
    /// it is cached (its detail, and each list that contains it). Each entry is updated atomically.
    ///
    /// - Returns: the keys whose data changed.
    @discardableResult
    public func setQueriesData<T: Sendable>(
        matching prefix: QueryKey, exact: Bool = false, as type: T.Type = T.self, updater: (T) -> T
    ) -> [QueryKey] {
        let now = scheduler.now
        return entries(matching: prefix, exact: exact).compactMap { entry in
            guard entry.data is T else { return nil }
            let changed = try? entry.update(at: now, structuralSharing: defaults(for: entry.key).structuralSharing) {
                (old: T?) in old.map(updater)
            }
            guard changed == true else { return nil }
            if let data = entry.data { share { .setData(data, for: entry.key) } }
            return entry.key
        }
    }

    /// The typed snapshot of `key`: data, error, statuses, times, staleness (judged as a consumer without a
    /// `staleTime` of its own judges: by the key's observers, or the defaults that apply to `key` without any).
    ///
    /// - Throws: `QueryError.typeMismatch` when the cached value is not a `T`.
    public func snapshot<T: Sendable>(for key: QueryKey, as type: T.Type = T.self) throws -> QuerySnapshot<T> {
        let entry = existingEntry(for: key)?.snapshot ?? EntrySnapshot()
        let staleTime = entry.staleTime ?? defaults(for: key).staleTime
        return try QuerySnapshot(key: key, entry: entry, staleTime: staleTime, now: scheduler.now)
    }

    /// Returns once no fetch or other tracked work is running (retries waiting on the scheduler and fetches
    /// paused for the network do not count), saves to the persistent cache included. Tests use it as a barrier
    /// instead of sleeping.
    public func waitUntilIdle() async {
        await context.tracker.waitUntilIdle()
    }

    /// Returns once every value queued for the persistent cache is written (or has failed, which `events`
    /// reports as `persistenceFailed`), including values queued while it waits.
    ///
    /// Saves run behind the caller, on a writer of this client: a fetch or `setQueryData` returns before its
    /// value is on disk. Await `flush()` before the process exits, or before reading or changing the cache
    /// provider directly (its `get`, `remove(for:)` or `removeAll()` do not see the values still queued); a
    /// crash loses at most the values not yet flushed. Queries of this client always see the latest value.
    public func flush() async {
        await context.writer.flush()
    }
}
