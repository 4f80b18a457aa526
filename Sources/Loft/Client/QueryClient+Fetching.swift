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
    ///   - fetcher: produces the value.
    /// - Throws: the fetcher's error once retries are exhausted, `QueryError.cancelled`, or
    ///   `QueryError.typeMismatch` when the cached value is not a `T`.
    public func fetchQuery<T: Sendable>(
        _ key: QueryKey,
        staleTime: StaleTime? = nil,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let defaults = defaults(for: key)
        let intent = FetchIntent.ifStale(staleTime ?? defaults.staleTime)
        return try await fetch(key, intent, retry: retry, networkMode: networkMode, tags: tags, fetcher: fetcher)
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
        fetcher: @escaping @Sendable () async throws -> T
    ) async {
        let intent = FetchIntent.ifStale(staleTime ?? defaults(for: key).staleTime)
        _ = try? await fetch(
            key, intent, retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags, fetcher: fetcher)
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
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await fetch(
            key, .ifMissing, retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags, fetcher: fetcher)
    }

    private func fetch<T: Sendable>(
        _ key: QueryKey,
        _ intent: FetchIntent,
        retry: RetryPolicy,
        networkMode: NetworkMode?,
        reason: FetchReason = .manual,
        tags: [QueryTag],
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let defaults = defaults(for: key)
        let request = FetchRequest(
            fetch: { try await fetcher() },
            retry: retry,
            networkMode: networkMode ?? defaults.networkMode,
            structuralSharing: defaults.structuralSharing,
            reason: reason
        )
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
}
