import Loft

/// A persistent cache for tests (`QueryCacheType`) that records every save, read and removal it gets, as a
/// list, and hands each to the cache it wraps (an `InMemoryQueryCache` unless given another).
///
/// ```swift
/// let cache = RecordingQueryCache()
/// let test = TestQueryClient(cache: cache)
/// let user = Query(key: ["user", 1], client: test.client) { User(id: 1) }
/// await test.until { user.state.value != nil }
/// await test.client.flush()
/// #expect(cache.saves == [[["user", 1]]])
/// ```
///
/// **Behavior**
/// - `calls` lists every call in the order it came: a `save` of one value records its key, a burst of saves
///   (`save(_:)`, as a client's writer hands them over) records the burst's keys in one call.
/// - A write that the test made fail with `fail(_:with:)` is not passed on and reports that error; the other
///   writes of its burst are stored.
/// - With `listsKeys: false` it stands for a provider of a user's own that cannot list its keys:
///   `keys(under:)` throws `CacheError.unavailable`, as the protocol's default does.
public final class RecordingQueryCache: QueryCacheType {
    /// A call the cache received.
    public enum Call: Sendable, Equatable {
        /// One `save(_:for:savedAt:expiresAt:)` (one key) or one burst `save(_:)` (its keys, in order).
        case save([QueryKey])
        case get(QueryKey)
        case remove(QueryKey)
        case removeAll
        case keys(under: QueryKey)
    }

    /// The cache the calls go to.
    public let wrapped: any QueryCacheType
    private let listsKeys: Bool
    private let recorded = Locked<[Call]>([])
    private let failing = Locked<[QueryKey: CacheError]>([:])

    /// Makes a recording cache in front of `wrapped`.
    ///
    /// - Parameters:
    ///   - wrapped: where the values are kept. Default: a new `InMemoryQueryCache`.
    ///   - listsKeys: whether `keys(under:)` lists the wrapped cache's keys (default) or throws
    ///     `CacheError.unavailable`, as a provider that cannot list them does.
    public init(_ wrapped: any QueryCacheType = InMemoryQueryCache(), listsKeys: Bool = true) {
        self.wrapped = wrapped
        self.listsKeys = listsKeys
    }

    /// Every call, in the order it came.
    public var calls: [Call] {
        recorded.withLock { $0 }
    }

    /// The keys of each save call, in order: one key for a single save, a burst's keys for `save(_:)`.
    public var saves: [[QueryKey]] {
        calls.compactMap { if case .save(let keys) = $0 { keys } else { nil } }
    }

    /// The keys read, in order.
    public var reads: [QueryKey] {
        calls.compactMap { if case .get(let key) = $0 { key } else { nil } }
    }

    /// The keys removed one by one, in order (`removeAll` is in `calls`).
    public var removals: [QueryKey] {
        calls.compactMap { if case .remove(let key) = $0 { key } else { nil } }
    }

    /// Makes every later write of `key` fail with `error` (the value is not passed on).
    public func fail(_ key: QueryKey, with error: CacheError) {
        failing.withLock { $0[key] = error }
    }

    /// Records the save, then stores `value` in the wrapped cache (or throws the error `fail(_:with:)` set).
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) throws(CacheError) {
        record(.save([key]))
        if let error = failing.withLock({ $0[key] }) { throw error }
        try wrapped.save(value, for: key, savedAt: savedAt, expiresAt: expiresAt)
    }

    /// Records the burst's keys, then stores the writes in the wrapped cache in one call; a write made to
    /// fail is reported with its error, not stored.
    public func save(_ writes: [CacheWrite]) -> [QueryKey: CacheError] {
        record(.save(writes.map(\.key)))
        let failing = failing.withLock { $0 }
        var failures = wrapped.save(writes.filter { failing[$0.key] == nil })
        for write in writes { if let error = failing[write.key] { failures[write.key] = error } }
        return failures
    }

    /// Records the read, then reads the wrapped cache.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError) -> CachedValue<Value>? {
        record(.get(key))
        return try wrapped.get(type, for: key)
    }

    /// The wrapped cache's save time of `key` (not recorded: the client asks it with every read).
    public func savedAt(forKey key: QueryKey) -> SchedulerInstant? {
        wrapped.savedAt(forKey: key)
    }

    /// Records the removal, then removes the value from the wrapped cache.
    public func remove(for key: QueryKey) throws(CacheError) {
        record(.remove(key))
        try wrapped.remove(for: key)
    }

    /// Records the call, then empties the wrapped cache.
    public func removeAll() throws(CacheError) {
        record(.removeAll)
        try wrapped.removeAll()
    }

    /// Records the call, then lists the wrapped cache's keys (or throws `CacheError.unavailable` when made
    /// with `listsKeys: false`).
    public func keys(under prefix: QueryKey) throws(CacheError) -> [QueryKey] {
        record(.keys(under: prefix))
        guard listsKeys else {
            throw .unavailable(store: "RecordingQueryCache", reason: "it cannot list its keys (keys(under:))")
        }
        return try wrapped.keys(under: prefix)
    }

    private func record(_ call: Call) {
        recorded.withLock { $0.append(call) }
    }
}
