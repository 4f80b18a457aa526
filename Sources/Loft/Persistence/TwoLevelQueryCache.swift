/// Memory in front of a slower provider (usually a `JSONFileQueryCache`): reads are served from memory when
/// they can, and every save goes to both.
///
/// ```swift
/// let cache = TwoLevelQueryCache(
///     memory: InMemoryQueryCache(capacity: 200),
///     disk: JSONFileQueryCache(directory: folder)
/// )
/// ```
///
/// **Behavior**
/// - Read-through: a value missing from memory is read from disk and kept in memory for the next read.
/// - Write-through: a save goes to memory, then to disk. When the disk fails the memory still holds the new
///   value and the disk's error is thrown (a client reports it as `persistenceFailed`).
/// - `remove` and `removeAll` clear both levels; the disk's error, if any, is thrown after memory is cleared.
public final class TwoLevelQueryCache: QueryCacheType {
    /// The fast level.
    public let memory: InMemoryQueryCache
    /// The lasting level.
    public let disk: any QueryCacheType

    /// Puts `memory` in front of `disk`.
    public init(memory: InMemoryQueryCache = InMemoryQueryCache(), disk: any QueryCacheType) {
        self.memory = memory
        self.disk = disk
    }

    /// Saves to memory, then to disk.
    ///
    /// - Throws: the first level's error (then nothing is saved), else the disk's (memory holds the value).
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) throws(CacheError) {
        try memory.save(value, for: key, savedAt: savedAt, expiresAt: expiresAt)
        try disk.save(value, for: key, savedAt: savedAt, expiresAt: expiresAt)
    }

    /// Saves each value to memory, then the ones memory took to disk in one call (a disk that stores a batch in
    /// one transaction gets the whole burst).
    ///
    /// - Returns: the first level's errors (those values are not saved), and the disk's (memory holds those).
    public func save(_ writes: [CacheWrite]) -> [QueryKey: CacheError] {
        var failures = memory.save(writes)
        failures.merge(disk.save(writes.filter { failures[$0.key] == nil }), uniquingKeysWith: { first, _ in first })
        return failures
    }

    /// Reads from memory, else from disk (and keeps the value in memory).
    ///
    /// - Throws: as the disk's `get`; a value in memory that no longer decodes is dropped and read from disk.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError)
        -> CachedValue<Value>?
    {
        if let cached = try? memory.get(type, for: key) { return cached }
        memory.remove(for: key)
        guard let cached = try disk.get(type, for: key) else { return nil }
        if let value = cached.value as? any Encodable {
            try? memory.save(value, for: key, savedAt: cached.savedAt, expiresAt: nil)
        }
        return cached
    }

    /// When the value of `key` was saved (memory first).
    public func savedAt(forKey key: QueryKey) -> SchedulerInstant? {
        memory.savedAt(forKey: key) ?? disk.savedAt(forKey: key)
    }

    /// Removes the value of `key` from both levels.
    ///
    /// - Throws: the disk's error (memory is cleared regardless).
    public func remove(for key: QueryKey) throws(CacheError) {
        memory.remove(for: key)
        try disk.remove(for: key)
    }

    /// The keys stored under `prefix` on the disk (the memory holds a subset of them).
    ///
    /// - Throws: as the disk's.
    public func keys(under prefix: QueryKey) throws(CacheError) -> [QueryKey] {
        try disk.keys(under: prefix)
    }

    /// Removes every value from both levels.
    ///
    /// - Throws: the disk's error (memory is cleared regardless).
    public func removeAll() throws(CacheError) {
        memory.removeAll()
        try disk.removeAll()
    }
}
