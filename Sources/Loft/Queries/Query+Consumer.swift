extension Query {
    /// Reads and observes the state of a key without being able to fetch it: another screen's view of data
    /// that a `Query` (or `fetchQuery`) produces. It is a `Selection` whose value is the data itself.
    ///
    /// ```swift
    /// let header = Query<Int, User>.Consumer(key: ["user", 42])
    /// let subscription = header.statePublisher.sink { print($0) }
    /// ```
    ///
    /// **Behavior**
    /// - It shares the producer's state, never a copy: every change of the key's entry reaches it.
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
    ///   - options: `select`, placeholder data, `staleTime` (for `isStale`). Default: the client's.
    ///   - client: the cache. Default `QueryClient.shared`.
    public convenience init(
        key: QueryKey, options: QueryOptions<Response> = QueryOptions(), client: QueryClient = .shared
    ) {
        self.init(key: key, options: options, client: client, select: nil)
    }
}
