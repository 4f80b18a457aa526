#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a query uses its persistent cache: how long a stored value stays valid, and when it is used.
///
/// ```swift
/// let config = QueryCacheConfig(invalidationPolicy: .expiresAfter(3600), usagePolicy: .useAndThenFetch)
/// ```
public struct QueryCacheConfig: Sendable, Hashable {
    /// How long a stored value stays valid, measured from when it was saved on the client's clock.
    public enum InvalidationPolicy: Sendable, Hashable {
        /// Valid forever (the default).
        case notExpires
        /// Valid for `duration` after it was saved.
        case expiresAfter(Duration)

        /// Pigeon's spelling, in seconds: `.expiresAfter(3600)`.
        public static func expiresAfter(_ seconds: TimeInterval) -> InvalidationPolicy {
            .expiresAfter(.milliseconds(Int64((seconds * 1000).rounded())))
        }

        /// Whether a value saved at `savedAt` is still valid at `now`.
        public func isValid(savedAt: SchedulerInstant, now: SchedulerInstant) -> Bool {
            switch self {
            case .notExpires: true
            case .expiresAfter(let duration): now < savedAt + duration
            }
        }

        /// When a value saved at `savedAt` stops being valid; nil when never.
        public func expiry(savedAt: SchedulerInstant) -> SchedulerInstant? {
            switch self {
            case .notExpires: nil
            case .expiresAfter(let duration): savedAt + duration
            }
        }
    }

    /// When a valid stored value is used.
    public enum UsagePolicy: Sendable, Hashable {
        /// A valid stored value is used and the fetcher is not called; only invalidation (which declares the
        /// data out of date) goes to the network.
        case useInsteadOfFetching
        /// Fetch first; when the fetch fails (after its retries), fall back to the valid stored value (the
        /// default).
        case useIfFetchFails
        /// Show the valid stored value at once, then fetch and replace it.
        case useAndThenFetch
    }

    /// How long a stored value stays valid. Default `.notExpires`.
    public var invalidationPolicy: InvalidationPolicy
    /// When a valid stored value is used. Default `.useIfFetchFails`.
    public var usagePolicy: UsagePolicy

    /// Makes a configuration.
    ///
    /// - Parameters:
    ///   - invalidationPolicy: how long a stored value stays valid (default: forever).
    ///   - usagePolicy: when it is used (default: when a fetch fails).
    public init(invalidationPolicy: InvalidationPolicy = .notExpires, usagePolicy: UsagePolicy = .useIfFetchFails) {
        self.invalidationPolicy = invalidationPolicy
        self.usagePolicy = usagePolicy
    }

    /// The configuration of queries that name none and whose client names none: the one given to
    /// `QueryPersistenceDefaults.configure`, else `QueryCacheConfig()`.
    public static var global: QueryCacheConfig {
        QueryPersistenceDefaults.config
    }
}
