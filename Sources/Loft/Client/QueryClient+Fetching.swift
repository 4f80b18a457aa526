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
    @inlinable
    public func fetchQuery<T: Sendable>(
        _ key: QueryKey,
        staleTime: StaleTime? = nil,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        gcTime: GCTime? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let staleTime = staleTime ?? defaults(for: key).staleTime
        // Inlined, the cast is made with the caller's type: a hit looks up no generic metadata.
        if tags.isEmpty, let hit = freshHit(key, judgedBy: staleTime, keeping: gcTime), let typed = hit.data as? T {
            served(hit.entry)
            return typed
        }
        return try await fetch(
            key, .ifStale(staleTime), retry: retry, networkMode: networkMode, tags: tags, gcTime: gcTime,
            fetcher: fetcher)
    }

    /// Fetches `key` into the cache unless fresh data is there; never throws (a failure is in the snapshot).
    ///
    /// - Parameters: as `fetchQuery`; `retry` defaults to `.never`.
    @inlinable
    public func prefetchQuery<T: Sendable>(
        _ key: QueryKey,
        staleTime: StaleTime? = nil,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        gcTime: GCTime? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async {
        let staleTime = staleTime ?? defaults(for: key).staleTime
        if tags.isEmpty, let hit = freshHit(key, judgedBy: staleTime, keeping: gcTime), hit.data is T {
            return served(hit.entry)
        }
        _ = try? await fetch(
            key, .ifStale(staleTime), retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags,
            gcTime: gcTime, fetcher: fetcher)
    }

    /// Returns the cached data of `key` whatever its age, fetching only when there is none.
    ///
    /// - Parameters: as `fetchQuery`; `retry` defaults to `.never`.
    /// - Throws: as `fetchQuery`.
    @inlinable
    public func ensureQueryData<T: Sendable>(
        _ key: QueryKey,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        gcTime: GCTime? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        if tags.isEmpty, let hit = freshHit(key, judgedBy: .static, keeping: gcTime), let typed = hit.data as? T {
            served(hit.entry)
            return typed
        }
        return try await fetch(
            key, .ifMissing, retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags, gcTime: gcTime,
            fetcher: fetcher)
    }

    @usableFromInline
    func fetch<T: Sendable>(
        _ key: QueryKey,
        _ intent: FetchIntent,
        retry: RetryPolicy,
        networkMode: NetworkMode?,
        reason: FetchReason = .manual,
        tags: [QueryTag],
        gcTime: GCTime?,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
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

    /// The entry of `key` and its data when the data is fresh for `staleTime` (`.static`: any data), read
    /// without the machine (no waiter, no continuation, no event), the rule asked being `Staleness`'s as the
    /// machine's; nil when the machine must decide (no data, stale, or a `gcTime` longer than the entry keeps).
    @usableFromInline
    package func freshHit(
        _ key: QueryKey, judgedBy staleTime: StaleTime, keeping gcTime: GCTime?
    ) -> (entry: QueryCacheEntry, data: any Sendable)? {
        guard let entry = existingEntry(for: key),
            let data = entry.freshData(judgedBy: staleTime, keeping: gcTime, at: scheduler.now)
        else { return nil }
        return (entry, data)
    }

    /// A read was answered from `entry` without the machine: a use, and a hit (`served` from the cache).
    @usableFromInline
    package func served(_ entry: QueryCacheEntry) {
        noteUse(of: entry)
        context.emit(.served(entry.key, fromCache: true))
    }
}
