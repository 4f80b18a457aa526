extension Query {
    /// Reads and observes the state of a key without being able to fetch it: another screen's view of data
    /// that a `Query` (or `fetchQuery`) produces. It is a `Selection` whose value is the data itself.
    ///
    /// ```swift
    /// let header = Query<Int, User>.Consumer(key: ["user", 42])
    /// let subscription = header.statePublisher.sink { print($0) }
    /// ```
    ///
    /// `Consumer<User>(key:)` is the same type, spelled without the request type a consumer never uses.
    ///
    /// **Behavior**
    /// - It shares the producer's state, never a copy: every change of the key's entry reaches it.
    /// - Without a `staleTime` of its own it judges freshness as the key does: by the shortest `staleTime` of
    ///   the key's queries (and consumers given one), or, with none, of the defaults for the key. Observing
    ///   never makes fresh data stale; given a `staleTime`, it judges by it, and the key turns stale for
    ///   everyone as soon as one observer finds it stale.
    /// - A consumer of a key that nobody fetched yet is `.idle`, and turns `.succeed` when someone does.
    /// - An invalidation of a key observed only by consumers refetches with the last request made for it.
    /// - When released, it leaves the entry's observers. When the entry is removed, it follows the key to the
    ///   next entry made for it.
    public typealias Consumer = Selection<Response>
}

extension Query.Selection where Value == Response {
    /// Observes `key`.
    ///
    /// - Parameters:
    ///   - key: the key to observe.
    ///   - options: `select`, placeholder data, `staleTime` (for `isStale`; default: the key's, as the Behavior
    ///     list says).
    ///   - client: the cache. Default `QueryClient.shared`.
    public convenience init(
        key: QueryKey, options: QueryOptions<Response> = QueryOptions(), client: QueryClient = .shared
    ) {
        self.init(key: key, options: options, client: client, select: nil)
    }
}

/// A consumer of a key whose data is a `Value`: `Consumer<[Issue]>(key: "issues")`, the same type as
/// `Query<Void, [Issue]>.Consumer` (a consumer never fetches, so its request type does not matter).
public typealias Consumer<Value: Sendable> = Query<Void, Value>.Selection<Value>
