extension QueryClient {
    /// Returns the data of `key`: the cached value when fresh, else the result of a fetch (joining one in
    /// flight).
    ///
    /// - Parameters:
    ///   - key: the key whose data to return.
    ///   - staleTime: how old cached data may be (default: the `staleTime` of the defaults for `key`, 0).
    ///   - retry: the retry policy of this fetch. Default `.never`: an imperative fetch does not retry unless
    ///     asked (TanStack's rule); queries retry with their options.
    ///   - networkMode: when the fetch may run (default: the defaults' `.online`: paused while offline).
    ///   - tags: tags the entry gets, as a query's `QueryOptions.tags` (default none).
    ///   - gcTime: how long the entry stays once nobody uses it (default: the defaults' for `key`, 300 s). The
    ///     entry keeps the longest `gcTime` it was told, by a caller or an observer, as in TanStack Query.
    ///   - fetcher: produces the value.
    /// - Throws: the fetcher's error once retries are exhausted, `QueryError.cancelled`, or
    ///   `QueryError.typeMismatch` when the cached value is not a `T`.
    ///
    /// The read-through call of a request handler: fresh data answers at once, from the entry, with no fetch
    /// and no wait (`QueryCacheEvent.served` with `fromCache`); concurrent callers of a missing or stale key
    /// share one fetch and all get its result.
    ///
    /// ```swift
    /// let item = try await client.fetchQuery(["items", id], staleTime: .seconds(5), gcTime: .seconds(60)) {
    ///     try await upstream.item(id)
    /// }
    /// ```
    public func fetchQuery<T: Sendable>(
        _ key: QueryKey,
        staleTime: StaleTime? = nil,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        gcTime: GCTime? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let intent = FetchIntent.ifStale(staleTime ?? defaults(for: key).staleTime)
        return try await fetch(
            key, intent, retry: retry, networkMode: networkMode, tags: tags, gcTime: gcTime, fetcher: fetcher)
    }

    /// Fetches `key` into the cache unless fresh data is there; never throws (a failure is in the snapshot).
    ///
    /// - Parameters: as `fetchQuery`; `retry` defaults to `.never`.
    public func prefetchQuery<T: Sendable>(
        _ key: QueryKey,
        staleTime: StaleTime? = nil,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        gcTime: GCTime? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async {
        let intent = FetchIntent.ifStale(staleTime ?? defaults(for: key).staleTime)
        _ = try? await fetch(
            key, intent, retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags, gcTime: gcTime,
            fetcher: fetcher)
    }

    /// Returns the cached data of `key` whatever its age, fetching only when there is none.
    ///
    /// - Parameters: as `fetchQuery`; `retry` defaults to `.never`.
    /// - Throws: as `fetchQuery`.
    public func ensureQueryData<T: Sendable>(
        _ key: QueryKey,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        gcTime: GCTime? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await fetch(
            key, .ifMissing, retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags, gcTime: gcTime,
            fetcher: fetcher)
    }

    private func fetch<T: Sendable>(
        _ key: QueryKey,
        _ intent: FetchIntent,
        retry: RetryPolicy,
        networkMode: NetworkMode?,
        reason: FetchReason = .manual,
        tags: [QueryTag],
        gcTime: GCTime?,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        if tags.isEmpty, let hit = try freshHit(key, intent, gcTime: gcTime, as: T.self) { return hit }
        let defaults = defaults(for: key)
        var request = FetchRequest(
            fetch: { try await fetcher() },
            retry: retry,
            networkMode: networkMode ?? defaults.networkMode,
            structuralSharing: defaults.structuralSharing,
            reason: reason
        )
        request.gcTime = gcTime
        while true {
            let entry = entry(for: key)
            if !tags.isEmpty { tag(entry, with: tags) }
            if let persistence = persistence(for: T.self, key: key) { entry.adoptPersistence(persistence) }
            do {
                return try cast(try await entry.fetchValue(request, intent), to: T.self, key: key)
            } catch is EntryRemovedError {
                // Removed between the lookup and the request: the key's next entry answers.
            }
        }
    }

    /// The answer of a read whose data is fresh, read from the entry without the machine (no waiter, no
    /// continuation, no event but `served`); nil when the machine must decide. The freshness rule is
    /// `Staleness`'s, as the machine's: `ifMissing` is fresh for any age.
    private func freshHit<T: Sendable>(
        _ key: QueryKey, _ intent: FetchIntent, gcTime: GCTime?, as type: T.Type
    ) throws -> T? {
        let staleTime: StaleTime
        switch intent {
        case .ifStale(let window): staleTime = window
        case .ifMissing: staleTime = .static
        case .explicit, .trigger, .appear, .interval: return nil
        }
        guard let entry = existingEntry(for: key),
            let data = entry.freshData(judgedBy: staleTime, keeping: gcTime, at: scheduler.now)
        else { return nil }
        noteUse(of: entry)
        context.emit(.served(key, fromCache: true))
        if let typed = data as? T { return typed }
        return try cast(data, to: T.self, key: key)
    }
}
