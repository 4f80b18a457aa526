/// A `Codable` snapshot of a client's successful queries, made by `QueryClient.dehydrate()` and restored by
/// `hydrate(_:)` in another client, possibly in another process.
///
/// ```swift
/// let saved = try JSONEncoder().encode(client.dehydrate())
/// // … later, or elsewhere:
/// other.hydrate(try JSONDecoder().decode(DehydratedState.self, from: saved))
/// ```
public struct DehydratedState: Codable, Sendable, Equatable {
    /// One query: its key, its data as JSON text, and when the data was obtained.
    public struct Entry: Codable, Sendable, Equatable {
        /// The key of the query.
        public var key: QueryKey
        /// The data, encoded as JSON (it is decoded when a query of its type first reads it).
        public var json: String
        /// When the data was fetched or set, on the dehydrating client's clock.
        public var dataUpdatedAt: SchedulerInstant
        /// The Swift type of the data when it was dehydrated, for diagnostics.
        public var type: String

        /// Makes an entry.
        public init(key: QueryKey, json: String, dataUpdatedAt: SchedulerInstant, type: String) {
            self.key = key
            self.json = json
            self.dataUpdatedAt = dataUpdatedAt
            self.type = type
        }
    }

    /// The queries, in key order.
    public var queries: [Entry]

    /// Makes a snapshot of `queries`.
    public init(queries: [Entry]) {
        self.queries = queries
    }
}
