/// A persistent store of `Codable` values by `QueryKey`: what lets a query show its data again after a restart.
///
/// Loft ships `InMemoryQueryCache`, `JSONFileQueryCache` and `TwoLevelQueryCache` (memory in front of disk).
/// A query uses one through its `cache:` and `cacheConfig:` parameters, its client's, or the global default
/// (`QueryPersistenceDefaults`).
///
/// ```swift
/// let cache = try JSONFileQueryCache(directory: cachesFolder)
/// try cache.save(user, for: ["user", 42])
/// let saved: User? = try cache.get(for: ["user", 42])
/// ```
///
/// **Behavior** (every provider)
/// - Thread-safe: any thread may save and read at once.
/// - A failure is a thrown `CacheError`, never a crash; a failed save leaves the previous record intact.
/// - `savedAt` is the time on the saver's clock (a query saves with its client's scheduler), so expiry works in
///   virtual time in tests and survives a restart.
public protocol QueryCacheType: Sendable {
    /// Stores `value` for `key`, replacing what was there.
    ///
    /// - Parameters:
    ///   - value: what to store.
    ///   - key: the key it is stored under.
    ///   - savedAt: when the value was obtained; `isValueValid` measures expiry from it.
    ///   - expiresAt: when it stops being useful, if known (a byte quota evicts expired records first).
    /// - Throws: `CacheError.encodingFailed`, `.writeFailed`, or `.exceedsQuota`.
    func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) throws(CacheError)

    /// The stored value of `key` with its save time, or nil when there is none.
    ///
    /// - Throws: `CacheError.corruptEntry` for an unreadable record, `.undecodableValue` when the record holds
    ///   a value that no longer decodes as `Value`, `.readFailed` for an I/O error.
    func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError) -> CachedValue<Value>?

    /// When the value of `key` was saved, or nil when there is none (or it is unreadable).
    func savedAt(forKey key: QueryKey) -> SchedulerInstant?

    /// Removes the value of `key`, if any.
    ///
    /// - Throws: `CacheError.writeFailed` when it cannot be deleted.
    func remove(for key: QueryKey) throws(CacheError)

    /// Removes every value.
    ///
    /// - Throws: `CacheError.writeFailed` when a record cannot be deleted (the others are still removed).
    func removeAll() throws(CacheError)

    /// The keys stored under `prefix` (the prefix itself included), in no particular order; a record that
    /// cannot be read is listed too when its key can be told (the read then reports what is wrong with it).
    /// The offline mutation journal finds its records with it. Default: throws `CacheError.unavailable` (the
    /// provider cannot list its keys, and keeps no offline journal).
    ///
    /// - Throws: `CacheError.readFailed` when the store cannot be listed.
    func keys(under prefix: QueryKey) throws(CacheError) -> [QueryKey]

    /// Stores several values, as many calls of `save(_:for:savedAt:expiresAt:)` in their order would. A
    /// client's writer hands each burst of queued saves of a cache to one call (the latest value of each key,
    /// so the keys are distinct); a provider that can store them together (in one transaction) implements it.
    /// Default: saves them one by one.
    ///
    /// - Parameter writes: the values, with their keys and times.
    /// - Returns: the error of each write that failed, by key; every other write is stored.
    func save(_ writes: [CacheWrite]) -> [QueryKey: CacheError]
}

extension QueryCacheType {
    /// Saves each value in turn with `save(_:for:savedAt:expiresAt:)`, collecting the failures.
    public func save(_ writes: [CacheWrite]) -> [QueryKey: CacheError] {
        var failures: [QueryKey: CacheError] = [:]
        for write in writes {
            do throws(CacheError) {
                try save(write.value, for: write.key, savedAt: write.savedAt, expiresAt: write.expiresAt)
            } catch {
                failures[write.key] = error
            }
        }
        return failures
    }

    /// Throws `CacheError.unavailable`: a provider that does not list its keys keeps no offline journal.
    public func keys(under prefix: QueryKey) throws(CacheError) -> [QueryKey] {
        throw .unavailable(store: "\(Self.self)", reason: "it cannot list its keys (keys(under:))")
    }

    /// Whether `key` has a stored value that `policy` still considers valid at `now`.
    public func isValueValid(
        forKey key: QueryKey, policy: QueryCacheConfig.InvalidationPolicy, now: SchedulerInstant
    ) -> Bool {
        guard let savedAt = savedAt(forKey: key) else { return false }
        return policy.isValid(savedAt: savedAt, now: now)
    }

    /// Whether `key` has a stored value that `policy` still considers valid now (wall-clock time; queries use
    /// their client's clock instead).
    public func isValueValid(forKey key: QueryKey, policy: QueryCacheConfig.InvalidationPolicy) -> Bool {
        isValueValid(forKey: key, policy: policy, now: WallClock.now())
    }

    /// Stores `value` for `key`, saved now (wall-clock time) and never expiring.
    ///
    /// - Throws: as `save(_:for:savedAt:expiresAt:)`.
    public func save<Value: Encodable>(_ value: Value, for key: QueryKey) throws(CacheError) {
        try save(value, for: key, savedAt: WallClock.now(), expiresAt: nil)
    }

    /// The stored value of `key`, or nil when there is none.
    ///
    /// - Throws: as `get(_:for:)`.
    public func get<Value: Decodable>(for key: QueryKey, as type: Value.Type = Value.self) throws(CacheError)
        -> Value?
    {
        try get(type, for: key)?.value
    }
}
