/// How one query persists its cache entry: the provider, the configuration, and save/load closures that know
/// the value's `Codable` type (the entry itself stores values type-erased).
package struct EntryPersistence: Sendable {
    package let cache: any QueryCacheType
    package let config: QueryCacheConfig
    /// Which cache this is, when it is an object (two value-type caches of one key share a writer's slot).
    package let cacheIdentity: ObjectIdentifier?
    private let saveValue: @Sendable (any Sendable, QueryKey, SchedulerInstant) throws(CacheError) -> Void
    private let loadValue: @Sendable (QueryKey) throws(CacheError) -> CachedValue<any Sendable>?

    /// The persistence of `Value`s, or nil when `Value` is not `Codable`.
    package static func make<Value: Sendable>(
        _ type: Value.Type, cache: any QueryCacheType, config: QueryCacheConfig
    ) -> EntryPersistence? {
        guard Value.self is any Codable.Type else { return nil }
        return EntryPersistence(
            cache: cache, config: config,
            saveValue: { value, key, now throws(CacheError) in
                guard let typed = try? cast(value, to: Value.self, key: key), let encodable = typed as? any Encodable
                else {
                    throw .notCodable(key: key, type: "\(Swift.type(of: value))")
                }
                let expiry = config.invalidationPolicy.expiry(savedAt: now)
                try cache.save(encodable, for: key, savedAt: now, expiresAt: expiry)
            },
            loadValue: { key throws(CacheError) in
                guard let decodable = Value.self as? any Decodable.Type else { return nil }
                return try load(decodable, as: Value.self, from: cache, key: key)
            }
        )
    }

    private init(
        cache: any QueryCacheType, config: QueryCacheConfig,
        saveValue: @escaping @Sendable (any Sendable, QueryKey, SchedulerInstant) throws(CacheError) -> Void,
        loadValue: @escaping @Sendable (QueryKey) throws(CacheError) -> CachedValue<any Sendable>?
    ) {
        self.cache = cache
        self.config = config
        cacheIdentity = type(of: cache) is AnyClass ? ObjectIdentifier(cache as AnyObject) : nil
        self.saveValue = saveValue
        self.loadValue = loadValue
    }

    /// Saves `value` as obtained at `now`; expiry follows the configuration.
    package func save(_ value: any Sendable, for key: QueryKey, at now: SchedulerInstant) throws(CacheError) {
        try saveValue(value, key, now)
    }

    /// The stored value of `key` if the invalidation policy still holds it valid at `now`.
    package func validValue(for key: QueryKey, at now: SchedulerInstant) throws(CacheError) -> CachedValue<
        any Sendable
    >? {
        guard let cached = try loadValue(key),
            config.invalidationPolicy.isValid(savedAt: cached.savedAt, now: now)
        else { return nil }
        return cached
    }

    /// Whether the stored value of `key` is valid at `now`, without reading the value.
    package func hasValidValue(for key: QueryKey, at now: SchedulerInstant) -> Bool {
        cache.isValueValid(forKey: key, policy: config.invalidationPolicy, now: now)
    }
}

/// Reads `Stored` and returns it as the `Value` it is (the two are one type, opened from an existential).
private func load<Stored: Decodable, Value: Sendable>(
    _ stored: Stored.Type, as value: Value.Type, from cache: any QueryCacheType, key: QueryKey
) throws(CacheError) -> CachedValue<any Sendable>? {
    guard let cached = try cache.get(Stored.self, for: key), let value = cached.value as? Value else { return nil }
    return CachedValue(value: value, savedAt: cached.savedAt)
}
