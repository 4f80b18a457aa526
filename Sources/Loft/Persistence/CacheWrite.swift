/// One value of a burst of saves that a client's writer hands to `QueryCacheType.save(_:)` at once, so that a
/// provider able to store several values together (one database transaction) does.
///
/// ```swift
/// let failures = cache.save([
///     CacheWrite(key: ["user", 1], value: ada, savedAt: now),
///     CacheWrite(key: ["user", 2], value: grace, savedAt: now),
/// ])
/// ```
public struct CacheWrite {
    /// The key the value is stored under.
    public let key: QueryKey
    /// What to store.
    public let value: any Encodable
    /// When the value was obtained; validity is measured from it.
    public let savedAt: SchedulerInstant
    /// When it stops being useful, if known.
    public let expiresAt: SchedulerInstant?

    /// Makes a write of `value` under `key`.
    ///
    /// - Parameters:
    ///   - key: the key it is stored under.
    ///   - value: what to store.
    ///   - savedAt: when the value was obtained.
    ///   - expiresAt: when it stops being useful (default: never).
    public init(key: QueryKey, value: any Encodable, savedAt: SchedulerInstant, expiresAt: SchedulerInstant? = nil) {
        self.key = key
        self.value = value
        self.savedAt = savedAt
        self.expiresAt = expiresAt
    }
}
