import Foundation

extension CacheInspector {
    /// One cache entry as an inspector shows it: what a filter sees, the data or error, and the moments it turns
    /// stale and is collected. A devtool's list and its detail view are made of these.
    public struct Entry: Sendable {
        /// Key, status, fetch status, observers, staleness, as a filter sees them.
        public let info: QueryInfo
        /// The data, if any (of the type its queries gave it).
        public let data: (any Sendable)?
        /// The last fetch's error, when it failed.
        public let error: (any Error)?
        /// The failed attempts of the fetch in flight (or of the last one).
        public let failureCount: Int
        /// Whether the data was invalidated (stale until refetched, whatever its age).
        public let isInvalidated: Bool
        /// Whether the data was read back from the persistent cache and not fetched since.
        public let isRestored: Bool
        /// The `staleTime` the key's observers judge it by (the shortest among them); nil with none that has one.
        public let staleTime: StaleTime?
        /// When the data turns stale for the key's observers (the shortest `staleTime` among them, or the
        /// defaults'); nil without data, once invalidated, or when it never does.
        public let staleAt: SchedulerInstant?
        /// When garbage collection removes the entry; nil while it is observed or fetching, or when it is kept
        /// forever (`gcTime: .infinity`).
        public let collectedAt: SchedulerInstant?

        /// The data as JSON (sorted keys), when it is `Encodable`; nil otherwise or when it does not encode.
        public var dataJSON: String? {
            guard let encodable = data as? any Encodable else { return nil }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(encodable)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Every entry of the client, sorted by key (its description), read at the client's `scheduler.now`.
    public func entries() -> [Entry] {
        let now = client.scheduler.now
        return client.allEntries.map { Self.entry($0, at: now) }
            .sorted { $0.info.key.description < $1.info.key.description }
    }

    /// The entry of `key`, or nil when the client has none.
    public func entry(for key: QueryKey) -> Entry? {
        client.existingEntry(for: key).map { Self.entry($0, at: client.scheduler.now) }
    }

    private static func entry(_ entry: QueryCacheEntry, at now: SchedulerInstant) -> Entry {
        let (snapshot, info, collectedAt) = entry.inspection(at: now)
        let staleAt = Staleness.keyStaleFrom(snapshot)
        return Entry(
            info: info, data: snapshot.data, error: snapshot.error, failureCount: snapshot.failureCount,
            isInvalidated: snapshot.isInvalidated, isRestored: snapshot.isRestored, staleTime: snapshot.staleTime,
            staleAt: staleAt,
            collectedAt: collectedAt)
    }
}
