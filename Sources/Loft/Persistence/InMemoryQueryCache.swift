#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A persistent-cache provider in memory: values survive their query entries' garbage collection (not a
/// restart), bounded by an entry count and optionally by bytes. Most useful in front of a disk provider
/// (`TwoLevelQueryCache`) and in tests.
///
/// ```swift
/// let cache = InMemoryQueryCache(capacity: 500, byteLimit: 10 << 20)
/// ```
///
/// **Behavior**
/// - Values are stored as their JSON encoding, so a stored value is a copy: changing a reference type after
///   saving it does not change what is stored, and reading back checks the type as the disk does.
/// - When a save goes over `capacity` entries or `byteLimit` bytes (the encoded sizes), the least recently used
///   entries (saved or read) are evicted until it fits.
/// - Thread-safe: one lock; encoding and decoding run outside it.
public final class InMemoryQueryCache: QueryCacheType {
    private struct Record: Sendable {
        var data: Data
        var savedAt: SchedulerInstant
        var storedType: String
    }

    private struct State: Sendable {
        var records: [QueryKey: Record] = [:]
        var order = LRUList<QueryKey>()
        var bytes = 0
    }

    /// The most entries kept.
    public let capacity: Int
    /// The most bytes of encoded values kept, if limited.
    public let byteLimit: Int?
    private let state = Locked(State())

    /// Makes an empty cache.
    ///
    /// - Parameters:
    ///   - capacity: the most entries kept (default 1,000; at least 1).
    ///   - byteLimit: the most bytes of encoded values kept (default: no limit).
    public init(capacity: Int = 1000, byteLimit: Int? = nil) {
        self.capacity = max(1, capacity)
        self.byteLimit = byteLimit
    }

    /// How many entries are stored.
    public var count: Int {
        state.withLock { $0.records.count }
    }

    /// The bytes of all stored encoded values.
    public var byteCount: Int {
        state.withLock { $0.bytes }
    }

    /// Stores `value`; evicts the least recently used entries when over the capacity or byte limit.
    ///
    /// - Throws: `CacheError.encodingFailed`, or `.exceedsQuota` when the value alone is over `byteLimit`.
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) throws(CacheError) {
        let data = try CacheCoding.encode(value, key: key)
        if let byteLimit, data.count > byteLimit {
            throw .exceedsQuota(key: key, bytes: data.count, quota: byteLimit)
        }
        store(Record(data: data, savedAt: savedAt, storedType: "\(Value.self)"), for: key)
    }

    /// The stored value of `key`; reading counts as a use for the LRU order.
    ///
    /// - Throws: `CacheError.undecodableValue` when it was saved as a type that does not decode as `Value`.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError)
        -> CachedValue<Value>?
    {
        let record = state.withLock { state -> Record? in
            guard let record = state.records[key] else { return nil }
            state.order.touch(key)
            return record
        }
        guard let record else { return nil }
        let value = try CacheCoding.decode(type, from: record.data, key: key, storedType: record.storedType)
        return CachedValue(value: value, savedAt: record.savedAt)
    }

    /// When the value of `key` was saved.
    public func savedAt(forKey key: QueryKey) -> SchedulerInstant? {
        state.withLock { $0.records[key]?.savedAt }
    }

    /// Removes the value of `key`.
    public func remove(for key: QueryKey) {
        state.withLock { state in
            guard let record = state.records.removeValue(forKey: key) else { return }
            state.bytes -= record.data.count
            state.order.remove(key)
        }
    }

    /// Removes every value.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The keys stored under `prefix`.
    public func keys(under prefix: QueryKey) -> [QueryKey] {
        state.withLock { $0.records.keys.filter { $0.hasPrefix(prefix) } }
    }

    private func store(_ record: Record, for key: QueryKey) {
        state.withLock { state in
            if let old = state.records.updateValue(record, forKey: key) { state.bytes -= old.data.count }
            state.bytes += record.data.count
            state.order.touch(key)
            while state.records.count > capacity || state.bytes > (byteLimit ?? .max),
                let victim = state.order.leastRecent, victim != key
            {
                state.order.remove(victim)
                if let evicted = state.records.removeValue(forKey: victim) { state.bytes -= evicted.data.count }
            }
        }
    }
}
