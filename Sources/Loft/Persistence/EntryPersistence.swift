import Foundation

/// How one query persists its cache entry: the provider, the configuration, and the value's `Codable` type
/// (the entry itself stores values type-erased).
package struct EntryPersistence: Sendable {
    /// Where values go: a local store, called at once, or one on a network, awaited.
    package enum Provider: Sendable {
        /// Memory or disk (`QueryCacheType`): read and written on the caller's or the writer's thread.
        case local(any QueryCacheType)
        /// A network store (`AsyncQueryCacheType`): read and written in tasks, never blocking a thread.
        case network(any AsyncQueryCacheType)
    }

    package let provider: Provider
    package let config: QueryCacheConfig
    /// Which cache this is, when it is an object (two value-type caches of one key share a writer's slot).
    package let cacheIdentity: ObjectIdentifier?
    private typealias Stored = CachedValue<any Sendable>
    private typealias LocalRead = @Sendable (any QueryCacheType, QueryKey) throws(CacheError) -> Stored?
    private typealias NetworkRead = @Sendable (any AsyncQueryCacheType, QueryKey) async throws(CacheError) -> Stored?
    /// Reads the value of a key as the entry's `Value` from a local provider, and from a network one.
    private let readLocal: LocalRead
    private let readNetwork: NetworkRead
    /// Whether a value read back is the entry's `Value` (the store's answer, as the type it was asked for).
    private let isValue: @Sendable (Any) -> Bool
    /// JSON decoded as the entry's `Value`.
    private let readJSON: @Sendable (String) -> (any Sendable)?
    /// A value of the entry (hydrated JSON decoded first) as the `Encodable` it is.
    private let encodable: @Sendable (any Sendable, QueryKey) throws(CacheError) -> any Encodable

    /// The persistence of `Value`s, or nil when `Value` is not `Codable`.
    package static func make<Value: Sendable>(
        _ type: Value.Type, cache: any QueryCacheType, config: QueryCacheConfig
    ) -> EntryPersistence? {
        make(Value.self, provider: .local(cache), config: config)
    }

    /// The persistence of `Value`s in `provider`, or nil when `Value` is not `Codable`.
    package static func make<Value: Sendable>(
        _ type: Value.Type, provider: Provider, config: QueryCacheConfig
    ) -> EntryPersistence? {
        guard Value.self is any Codable.Type else { return nil }
        return EntryPersistence(
            provider: provider, config: config,
            readLocal: { cache, key throws(CacheError) in
                guard let stored = Value.self as? any Decodable.Type else { return nil }
                return try read(stored, as: Value.self, from: cache, key: key)
            },
            readNetwork: { cache, key async throws(CacheError) in
                guard let stored = Value.self as? any Decodable.Type else { return nil }
                return try await read(stored, as: Value.self, from: cache, key: key)
            },
            isValue: { $0 is Value },
            readJSON: { json in
                guard let stored = Value.self as? any Decodable.Type else { return nil }
                return decodeJSON(json, stored, as: Value.self)
            },
            encodable: { value, key throws(CacheError) in
                guard let typed = try? cast(value, to: Value.self, key: key), let encodable = typed as? any Encodable
                else {
                    throw .notCodable(key: key, type: "\(Swift.type(of: value))")
                }
                return encodable
            })
    }

    private init(
        provider: Provider, config: QueryCacheConfig,
        readLocal: @escaping LocalRead, readNetwork: @escaping NetworkRead,
        isValue: @escaping @Sendable (Any) -> Bool, readJSON: @escaping @Sendable (String) -> (any Sendable)?,
        encodable: @escaping @Sendable (any Sendable, QueryKey) throws(CacheError) -> any Encodable
    ) {
        self.provider = provider
        self.config = config
        let object: Any =
            switch provider {
            case .local(let cache): cache
            case .network(let cache): cache
            }
        cacheIdentity = type(of: object) is AnyClass ? ObjectIdentifier(object as AnyObject) : nil
        self.readLocal = readLocal
        self.readNetwork = readNetwork
        self.isValue = isValue
        self.readJSON = readJSON
        self.encodable = encodable
    }

    /// `json` decoded as the entry's `Value`, or nil when it does not decode as it.
    package func decode(json: String) -> (any Sendable)? {
        readJSON(json)
    }

    /// Whether the provider is awaited (on a network).
    package var isAwaited: Bool {
        if case .network = provider { true } else { false }
    }

    /// Whether the provider is called at once (memory or disk).
    package var isLocal: Bool {
        !isAwaited
    }

    /// The write of `value` as obtained at `now`, for a local provider; expiry follows the configuration.
    ///
    /// - Throws: `CacheError.notCodable` when the value is not the entry's `Codable` type.
    package func write(_ value: any Sendable, for key: QueryKey, at now: SchedulerInstant) throws(CacheError)
        -> CacheWrite
    {
        CacheWrite(key: key, value: try encodable(value, key), savedAt: now, expiresAt: expiry(now))
    }

    /// Saves `value` as obtained at `now`, awaiting the provider.
    package func saveAwaiting(_ value: any Sendable, for key: QueryKey, at now: SchedulerInstant)
        async throws(CacheError)
    {
        let encodable = try encodable(value, key)
        switch provider {
        case .local(let cache): try cache.save(encodable, for: key, savedAt: now, expiresAt: expiry(now))
        case .network(let cache): try await cache.save(encodable, for: key, savedAt: now, expiresAt: expiry(now))
        }
    }

    /// The stored value of `key` from a local provider, if the invalidation policy still holds it valid at
    /// `now`; nil too when the provider is on a network.
    package func validValue(for key: QueryKey, at now: SchedulerInstant) throws(CacheError) -> CachedValue<
        any Sendable
    >? {
        guard case .local(let cache) = provider, let cached = try readLocal(cache, key) else {
            return nil
        }
        return valid(cached, at: now)
    }

    /// The stored value of `key`, awaiting the provider, if the invalidation policy still holds it valid at
    /// `now`.
    package func validValueAwaiting(for key: QueryKey, at now: SchedulerInstant) async throws(CacheError)
        -> CachedValue<any Sendable>?
    {
        let cached: CachedValue<any Sendable>? =
            switch provider {
            case .local(let cache): try readLocal(cache, key)
            case .network(let cache): try await readNetwork(cache, key)
            }
        return cached.flatMap { valid($0, at: now) }
    }

    /// Whether the stored value of `key` in a local provider is valid at `now`, without reading the value.
    package func hasValidValue(for key: QueryKey, at now: SchedulerInstant) -> Bool {
        guard case .local(let cache) = provider else { return false }
        return cache.isValueValid(forKey: key, policy: config.invalidationPolicy, now: now)
    }

    private func valid(_ cached: CachedValue<any Sendable>, at now: SchedulerInstant) -> CachedValue<any Sendable>? {
        guard config.invalidationPolicy.isValid(savedAt: cached.savedAt, now: now), isValue(cached.value) else {
            return nil
        }
        return cached
    }

    private func expiry(_ now: SchedulerInstant) -> SchedulerInstant? {
        config.invalidationPolicy.expiry(savedAt: now)
    }
}

/// Reads a `Stored` value as the entry's `Value` (the two are one type, opened from an existential) from a local provider.
private func read<Stored: Decodable, Value: Sendable>(
    _ stored: Stored.Type, as _: Value.Type, from cache: any QueryCacheType, key: QueryKey
) throws(CacheError) -> CachedValue<any Sendable>? {
    guard let cached = try cache.get(Stored.self, for: key), let value = cached.value as? Value else {
        return nil
    }
    return CachedValue(value: value, savedAt: cached.savedAt, version: cached.version)
}

/// Reads a `Stored` value as the entry's `Value` (the two are one type, opened from an existential) from a network provider.
private func read<Stored: Decodable, Value: Sendable>(
    _ stored: Stored.Type, as _: Value.Type, from cache: any AsyncQueryCacheType, key: QueryKey
) async throws(CacheError) -> CachedValue<any Sendable>? {
    guard let cached = try await cache.get(Stored.self, for: key), let value = cached.value as? Value else {
        return nil
    }
    return CachedValue(value: value, savedAt: cached.savedAt, version: cached.version)
}

/// `json` decoded as `Stored`, returned as the entry's `Value` (the two are one type, opened from an existential).
private func decodeJSON<Stored: Decodable, Value: Sendable>(_ json: String, _ stored: Stored.Type, as _: Value.Type)
    -> Value?
{
    (try? JSONDecoder().decode(Stored.self, from: Data(json.utf8))) as? Value
}
