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
    /// - Throws: the fetcher's error once retries are exhausted, `QueryError.cancelled` when the fetch is
    ///   cancelled, `CancellationError` when the calling task is cancelled while it waits (the fetch goes on for
    ///   the others who wait), or `QueryError.typeMismatch` when the cached value is not a `T`.
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
        let staleTime = staleTime ?? defaultStaleTime(for: key)
        // Inlined, the cast is made with the caller's type: a hit looks up no generic metadata. The look-up's
        // answer is bound where it is made, not kept in a variable: copying it out again cost a hit about a
        // fifth of its instructions (row (u)).
        var found: QueryCacheEntry?
        if tags.isEmpty, let lookUp = lookUp(key, judgedBy: staleTime, keeping: gcTime) {
            let entry = lookUp.entry
            if let hit = (consume lookUp).hit, !hit.isStale, let typed = hit.data as? T {
                served(entry)
                return typed
            }
            found = entry
        }
        let value = try await fetch(
            key, .ifStale(staleTime), retry: retry, networkMode: networkMode, tags: tags, gcTime: gcTime,
            found: found, fetcher: fetcher)
        return try cast(value, to: T.self, key: key)
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
        let staleTime = staleTime ?? defaultStaleTime(for: key)
        // As in `fetchQuery`: the look-up's answer bound where it is made, its hit taken out of it.
        var found: QueryCacheEntry?
        if tags.isEmpty, let lookUp = lookUp(key, judgedBy: staleTime, keeping: gcTime) {
            let entry = lookUp.entry
            if let hit = (consume lookUp).hit, !hit.isStale, hit.data is T { return served(entry) }
            found = entry
        }
        _ = try? await fetch(
            key, .ifStale(staleTime), retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags,
            gcTime: gcTime, found: found, fetcher: fetcher)
    }

    /// Returns the cached data of `key` whatever its age, fetching only when there is none; with
    /// `revalidateIfStale`, data stale for `staleTime` is returned at once while one refetch runs behind the
    /// caller (stale while revalidate, TanStack's `ensureQueryData` option).
    ///
    /// The read a server wants in front of an upstream that may fail: data it has answers at once, fresh or
    /// not, and stays while a refetch fails (the refetch's error goes into the entry); only a key with no data
    /// waits for the fetcher.
    ///
    /// ```swift
    /// let item = try await client.ensureQueryData(["items", id], revalidateIfStale: true) {
    ///     try await upstream.item(id)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: the key whose data to return.
    ///   - staleTime: what `revalidateIfStale` judges by (default: the defaults' for `key`).
    ///   - revalidateIfStale: refetch stale data behind the caller (default false: any data answers, as is). The
    ///     refetch starts at most once (one in flight is joined), records `.prefetch` as its reason, and retries
    ///     by `retry`.
    ///   - retry: the retry policy of a fetch (default `.never`).
    ///   - networkMode: when a fetch may run (default: the defaults' `.online`).
    ///   - tags: tags the entry gets (default none).
    ///   - gcTime: how long the entry stays once nobody uses it (default: the defaults' for `key`).
    ///   - fetcher: produces the value.
    /// - Throws: as `fetchQuery`, only when there is no data.
    @inlinable
    public func ensureQueryData<T: Sendable>(
        _ key: QueryKey,
        staleTime: StaleTime? = nil,
        revalidateIfStale: Bool = false,
        retry: RetryPolicy = .never,
        networkMode: NetworkMode? = nil,
        tags: [QueryTag] = [],
        gcTime: GCTime? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let staleTime = staleTime ?? defaultStaleTime(for: key)
        // As in `fetchQuery`: the look-up's answer bound where it is made, its hit taken out of it.
        var found: QueryCacheEntry?
        if tags.isEmpty, let lookUp = lookUp(key, judgedBy: staleTime, keeping: gcTime) {
            let entry = lookUp.entry
            if let hit = (consume lookUp).hit, let typed = hit.data as? T {
                served(entry)
                if revalidateIfStale, hit.isStale {
                    revalidate(entry, retry: retry, networkMode: networkMode, gcTime: gcTime, fetcher: fetcher)
                }
                return typed
            }
            found = entry
        }
        let value = try await fetch(
            key, .ifMissing, retry: retry, networkMode: networkMode, reason: .prefetch, tags: tags, gcTime: gcTime,
            found: found, fetcher: fetcher)
        if revalidateIfStale, let found = lookUp(key, judgedBy: staleTime, keeping: nil), found.hit?.isStale == true {
            revalidate(found.entry, retry: retry, networkMode: networkMode, gcTime: gcTime, fetcher: fetcher)
        }
        return try cast(value, to: T.self, key: key)
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
        found: QueryCacheEntry? = nil,
        fetcher: @escaping @Sendable () async throws -> T
    ) async throws -> any Sendable {
        let call = FetchCall(reason: reason, gcTime: gcTime)
        // The entry the caller's look-up found serves the first try: the table is not searched twice.
        var found = found
        while true {
            let entry = found ?? entry(for: key)
            found = nil
            if !tags.isEmpty { tag(entry, with: tags) }
            if let persistence = persistence(for: T.self, key: key) { entry.adoptPersistence(persistence) }
            do {
                // Erased: the inlinable caller casts it with its own type (no generic metadata looked up here).
                // The fetcher object is made only if the entry starts a fetch: a caller who joins makes none.
                return try await entry.readValue(call, intent) {
                    makeFetcher(key, retry: retry, networkMode: networkMode, fetcher: fetcher)
                }
            } catch is EntryRemovedError {
                // Removed between the lookup and the request: the key's next entry answers.
            }
        }
    }

    /// The fetcher object a read of `key` runs, with the settings the call and the defaults give it.
    private func makeFetcher<T: Sendable>(
        _ key: QueryKey, retry: RetryPolicy, networkMode: NetworkMode?,
        fetcher: @escaping @Sendable () async throws -> T
    ) -> any ErasedFetcher {
        // The two fields alone: copying the whole defaults cost every caller of a shared fetch (row (e)).
        let (defaultNetworkMode, structuralSharing) = readDefaults(for: key) { ($0.networkMode, $0.structuralSharing) }
        return FetchRequest.fetcher(
            fetcher, retry: retry, networkMode: networkMode ?? defaultNetworkMode, structuralSharing: structuralSharing)
    }

    /// Refetches `entry`, whose data was found stale, behind the caller: the machine starts the fetch, or joins
    /// the one in flight; nobody waits for it.
    @usableFromInline
    func revalidate<T: Sendable>(
        _ entry: QueryCacheEntry, retry: RetryPolicy, networkMode: NetworkMode?, gcTime: GCTime?,
        fetcher: @escaping @Sendable () async throws -> T
    ) {
        let request = FetchRequest(
            fetcher: makeFetcher(entry.key, retry: retry, networkMode: networkMode, fetcher: fetcher),
            call: FetchCall(reason: .prefetch, gcTime: gcTime))
        if let persistence = persistence(for: T.self, key: entry.key) { entry.adoptPersistence(persistence) }
        entry.request(request, .trigger)
    }

    /// The entry of `key` (nil: none yet) and, as `hit`, its data and whether the data is stale for
    /// `staleTime`, read without the machine (no waiter, no continuation, no event), the rule asked being
    /// `Staleness`'s as the machine's; `hit` is nil when the machine must decide (no data, or a `gcTime` longer
    /// than the entry keeps).
    @usableFromInline
    package func lookUp(_ key: QueryKey, judgedBy staleTime: StaleTime, keeping gcTime: GCTime?) -> LookUp? {
        guard let entry = existingEntry(for: key) else { return nil }
        return LookUp(entry: entry, hit: entry.cachedData(judgedBy: staleTime, keeping: gcTime, at: context.now))
    }

    /// A read was answered from `entry` without the machine: a use, and a hit (`served` from the cache).
    @usableFromInline
    package func served(_ entry: QueryCacheEntry) {
        noteUse(of: entry)
        context.emit(.served(entry.key, fromCache: true))
    }
}

/// What a read-through call's look-up found (`QueryClient.lookUp(_:judgedBy:keeping:)`): the key's entry, and
/// its data with its staleness when it has data. Structs, not tuples: a tuple holding an existential is copied
/// and destroyed through the runtime's tuple witnesses, which cost a fresh hit a third of its instructions
/// (docs/Performance.md, row (u)).
@usableFromInline
package struct LookUp: Sendable {
    @usableFromInline package let entry: QueryCacheEntry
    @usableFromInline package let hit: CachedHit?

    init(entry: QueryCacheEntry, hit: CachedHit?) {
        self.entry = entry
        self.hit = hit
    }
}

/// An entry's data and whether it is stale (`QueryCacheEntry.cachedData(judgedBy:keeping:at:)`).
@usableFromInline
package struct CachedHit: Sendable {
    @usableFromInline package let data: any Sendable
    @usableFromInline package let isStale: Bool

    init(data: any Sendable, isStale: Bool) {
        self.data = data
        self.isStale = isStale
    }
}
