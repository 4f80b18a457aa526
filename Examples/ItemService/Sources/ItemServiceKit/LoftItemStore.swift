import Loft

/// Items through Loft: `fetchQuery` is the read-through call, with the client's `staleTime`; a `Mutation` shared
/// by every request renames items and invalidates what it changed.
///
/// **Behavior**
/// - Fresh data answers from memory; a missing key is fetched once however many requests ask (they share the
///   fetch), and a request waits for it `readTimeout` at most.
/// - Stale data answers at once, marked stale, while one refresh of the key runs behind it (stale while
///   revalidate); so do the data of a key whose upstream fails, or hangs.
/// - While the upstream fails, a key's fetch retries every 250 ms for 10 s: the upstream sees one call per key
///   per attempt, and fresh data comes within a quarter of a second (and an attempt's time limit) of its return.
/// - Only keys with no data at all answer errors while the upstream fails.
public struct LoftItemStore: ItemStore {
    /// The client every request shares; its defaults give the items' `staleTime` and `gcTime`.
    public let client: QueryClient
    /// Where items come from.
    public let upstream: any ItemUpstream
    /// How long a request for a key with no data waits for the upstream.
    public let readTimeout: Duration
    private let rename: Mutation<ItemChange, Item>

    /// The key of item `id`.
    public static func key(_ id: Int) -> QueryKey { ["items", id] }

    /// Every 250 ms while the upstream fails, 40 attempts at most (a request starts the next round).
    public static let retry = RetryPolicy.custom { failures, _ in failures < 40 ? .milliseconds(250) : nil }

    /// A store on `client` in front of `upstream`; a read of an item with nothing cached waits `readTimeout` at
    /// most.
    public init(client: QueryClient, upstream: any ItemUpstream, readTimeout: Duration = .seconds(2)) {
        self.client = client
        self.upstream = upstream
        self.readTimeout = readTimeout
        rename = Mutation(
            client: client,
            options: MutationOptions(
                // The upstream's answer is the item now: the next read sees it at once, and the invalidation tells
                // the other instances (a fleet on PostgreSQL) to read it again.
                onSuccess: { item, _, _ in client.setQueryData(item, for: Self.key(item.id)) },
                invalidates: { _, change in [.exact(Self.key(change.id))] })
        ) { change in try await upstream.update(change) }
    }

    /// The item: fresh from memory, stale at once with a refresh behind it, or fetched (once for every request
    /// that asks meanwhile); the cached one, marked stale, when the upstream fails.
    public func item(_ id: Int) async throws -> (item: Item, isStale: Bool) {
        let key = Self.key(id)
        let snapshot = try client.snapshot(for: key, as: Item.self)
        if let stale = snapshot.data, snapshot.isStale {
            if !snapshot.isFetching { refresh(id) }
            return (stale, true)
        }
        do {
            let item = try await withDeadline(readTimeout) { [client, upstream] in
                try await client.fetchQuery(key, retry: Self.retry, gcTime: client.defaults.gcTime) {
                    try await upstream.item(id)
                }
            }
            return (item, false)
        } catch {
            if let cached = try client.getQueryData(key, as: Item.self) { return (cached, true) }
            throw error
        }
    }

    /// Renames the item through the shared mutation.
    public func update(_ change: ItemChange) async throws -> Item {
        try await rename.mutate(change)
    }

    /// Refreshes a stale item behind the request that found it (a fetch in flight is joined, not repeated).
    private func refresh(_ id: Int) {
        Task { [client, upstream] in
            await client.prefetchQuery(Self.key(id), retry: Self.retry) { try await upstream.item(id) }
        }
    }
}

/// The result of `body`, or `UpstreamError.timedOut` after `limit` (the body is cancelled: a Loft caller leaves,
/// and the fetch it joined goes on for the others).
func withDeadline<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw UpstreamError.timedOut
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw UpstreamError.timedOut }
        return first
    }
}
