/// The persistent cache and configuration of every query that names none and whose client names none.
///
/// ```swift
/// // Once, at start-up:
/// try QueryPersistenceDefaults.configure(cache: JSONFileQueryCache(directory: cachesFolder))
/// ```
///
/// **Behavior**
/// - Until configured there is no global cache: queries live in their client's memory only.
/// - It can be configured once; a second call throws `CacheError.alreadyConfigured` and changes nothing, so
///   no query can see the default change under its feet.
public enum QueryPersistenceDefaults {
    package static let store = SetOnce<Setting>()

    package struct Setting: Sendable {
        package var cache: any QueryCacheType
        package var config: QueryCacheConfig
    }

    /// Sets the global default cache and configuration.
    ///
    /// - Throws: `CacheError.alreadyConfigured` when it was set before.
    public static func configure(cache: any QueryCacheType, config: QueryCacheConfig = QueryCacheConfig())
        throws(CacheError)
    {
        guard store.set(Setting(cache: cache, config: config)) else { throw .alreadyConfigured }
    }

    /// The global default cache, if configured.
    public static var cache: (any QueryCacheType)? {
        store.value?.cache
    }

    /// The global default configuration (`QueryCacheConfig()` until configured).
    public static var config: QueryCacheConfig {
        store.value?.config ?? QueryCacheConfig()
    }
}
