import Loft

/// Items through Loft: a read is `ensureQueryData` with `revalidateIfStale` (stale while revalidate) under the
/// client's `staleTime`; a `Mutation` shared by every request renames items and invalidates what it changed.
///
/// **Behavior**
/// - Fresh data answers from memory; a missing key is fetched once however many requests ask (they share the
///   fetch, and its result).
/// - Stale data answers at once while one refetch of the key runs behind the request; so does the data of a
///   key whose upstream fails or hangs, until its refetch succeeds: the next request after the upstream's
///   return starts one, if none runs.
/// - A fetch tries once (`ensureQueryData`'s default retry, `.never`), one upstream call however many requests
///   wait; a failing upstream sees no more calls than requests. Only keys with no data at all answer errors
///   while it fails, after its time limit at most.
///
/// A final class, not a struct: the routes call it through `any ItemStore`, and a struct holding the client,
/// the upstream and the mutation would be copied (three retains and releases) on every request.
public final class LoftItemStore: ItemStore {
    /// The client every request shares; its defaults give the items' `staleTime` and `gcTime`.
    public let client: QueryClient
    /// Where items come from.
    public let upstream: any ItemUpstream
    private let rename: Mutation<ItemChange, Item>
    /// How long an item nobody asked for stays: the client's default, read once rather than per request.
    private let gcTime: GCTime

    /// The key of item `id`.
    public static func key(_ id: Int) -> QueryKey { ["items", id] }

    /// A store on `client` in front of `upstream`.
    public init(client: QueryClient, upstream: any ItemUpstream) {
        self.client = client
        self.upstream = upstream
        gcTime = client.defaults.gcTime
        rename = Mutation(
            client: client,
            options: MutationOptions(
                // The upstream's answer is the item now: the next read sees it at once, and the invalidation tells
                // the other instances (a fleet on PostgreSQL) to read it again.
                onSuccess: { item, _, _ in client.setQueryData(item, for: Self.key(item.id)) },
                invalidates: { _, change in [.exact(Self.key(change.id))] })
        ) { change in try await upstream.update(change) }
    }

    /// The item: from memory (a stale one refreshed behind the request), or fetched once for every request
    /// that asks meanwhile.
    public func item(_ id: Int) async throws -> Item {
        try await client.ensureQueryData(Self.key(id), revalidateIfStale: true, gcTime: gcTime) { [upstream] in
            try await upstream.item(id)
        }
    }

    /// Renames the item through the shared mutation.
    public func update(_ change: ItemChange) async throws -> Item {
        try await rename.mutate(change)
    }
}
