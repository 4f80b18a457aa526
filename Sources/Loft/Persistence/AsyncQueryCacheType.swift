/// A persistent store of `Codable` values by `QueryKey` that Loft awaits: a cache on a network (a database that
/// a service's instances share, a cache service), where a call may take a round trip or hang.
///
/// A client takes one with `QueryClient(cache:)`, in place of a `QueryCacheType`:
///
/// ```swift
/// let client = QueryClient(cache: shared)  // shared: some AsyncQueryCacheType, such as LoftPostgres's
/// ```
///
/// **Behavior** (what Loft does with it)
/// - Every call is awaited in a task of the client's: no thread waits for the store. While a call runs,
///   only what needs its answer waits (a fetch of that key asking the store first, a restore); every other
///   key, and this key's data already in memory, are served as usual.
/// - A read that fails is reported as `QueryCacheEvent.persistenceFailed` and counts as a miss: the query
///   fetches. A save is written behind the caller, as with any provider, one at a time per client, the
///   latest value of a key winning; `waitUntilIdle()` and `flush()` wait for it.
/// - The store bounds each call by a timeout of its own: Loft adds none, so a call that never returns leaves
///   its key waiting (and `waitUntilIdle()` with it).
/// - A value another client applied (`QueryClient.apply(_:)`) is not saved back to it: the client that made
///   the change wrote it already.
/// - The mutation journal (paused mutations kept across restarts) stays in local caches: calls of a
///   client on a network store are not persisted.
public protocol AsyncQueryCacheType: Sendable {
    /// Stores `value` for `key`, replacing what was there.
    ///
    /// - Parameters:
    ///   - value: what to store.
    ///   - key: the key it is stored under.
    ///   - savedAt: when the value was obtained; validity is measured from it.
    ///   - expiresAt: when it stops being useful, if known.
    /// - Throws: `CacheError.encodingFailed`, `.writeFailed`, `.unavailable`, `.timedOut`.
    func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) async throws(CacheError)

    /// The stored value of `key` with its save time, or nil when there is none.
    ///
    /// - Throws: `CacheError.undecodableValue` when the record no longer decodes as `Value`, `.corruptEntry`,
    ///   `.readFailed`, `.unavailable`, `.timedOut`.
    func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) async throws(CacheError)
        -> CachedValue<Value>?

    /// Removes the value of `key`, if any.
    ///
    /// - Throws: `CacheError.writeFailed`, `.unavailable`, `.timedOut`.
    func remove(for key: QueryKey) async throws(CacheError)

    /// Removes every value.
    ///
    /// - Throws: `CacheError.writeFailed`, `.unavailable`, `.timedOut`.
    func removeAll() async throws(CacheError)
}

extension AsyncQueryCacheType {
    /// Stores `value` for `key`, saved now (wall-clock time) and never expiring.
    ///
    /// - Throws: as `save(_:for:savedAt:expiresAt:)`.
    public func save<Value: Encodable>(_ value: Value, for key: QueryKey) async throws(CacheError) {
        try await save(value, for: key, savedAt: WallClock.now(), expiresAt: nil)
    }

    /// The stored value of `key`, or nil when there is none.
    ///
    /// - Throws: as `get(_:for:)`.
    public func get<Value: Decodable>(for key: QueryKey, as type: Value.Type = Value.self) async throws(CacheError)
        -> Value?
    {
        try await get(type, for: key)?.value
    }
}
