/// The client's reads, writes and invalidation with a `QueryDefinition` instead of a key and a type: the type
/// follows the definition. Each is the key-based call of the same name with the definition's key, fetcher and
/// options (inlined: the same path and the same cost).
extension QueryClient {
    /// `fetchQuery(_:staleTime:retry:networkMode:tags:gcTime:fetcher:)` of `request`'s entry under
    /// `definition`, with the definition's `staleTime`, `retry` (default `.never`), `networkMode`, `tags` and
    /// `gcTime`.
    ///
    /// - Throws: as `fetchQuery` with a key.
    @inlinable
    public func fetchQuery<Request: Sendable, Value: Sendable>(
        _ definition: QueryDefinition<Request, Value>, _ request: Request
    ) async throws -> Value {
        let options = definition.options
        let fetcher = definition.fetcher
        return try await fetchQuery(
            definition.key(for: request), staleTime: options.staleTime, retry: options.retry ?? .never,
            networkMode: options.networkMode, tags: options.tags, gcTime: options.gcTime
        ) { try await fetcher(request) }
    }

    /// `fetchQuery` of a definition without a request.
    @inlinable
    public func fetchQuery<Value: Sendable>(_ definition: QueryDefinition<Void, Value>) async throws -> Value {
        try await fetchQuery(definition, ())
    }

    /// `prefetchQuery` of `request`'s entry under `definition`, with the definition's options (as
    /// `fetchQuery(_:_:)`); never throws.
    @inlinable
    public func prefetchQuery<Request: Sendable, Value: Sendable>(
        _ definition: QueryDefinition<Request, Value>, _ request: Request
    ) async {
        let options = definition.options
        let fetcher = definition.fetcher
        await prefetchQuery(
            definition.key(for: request), staleTime: options.staleTime, retry: options.retry ?? .never,
            networkMode: options.networkMode, tags: options.tags, gcTime: options.gcTime
        ) { try await fetcher(request) }
    }

    /// `prefetchQuery` of a definition without a request.
    @inlinable
    public func prefetchQuery<Value: Sendable>(_ definition: QueryDefinition<Void, Value>) async {
        await prefetchQuery(definition, ())
    }

    /// `ensureQueryData` of `request`'s entry under `definition`, with the definition's options (as
    /// `fetchQuery(_:_:)`).
    ///
    /// - Parameters:
    ///   - definition: the query's declaration.
    ///   - request: the request whose entry to read.
    ///   - revalidateIfStale: as `ensureQueryData` with a key (default false).
    /// - Throws: as `ensureQueryData` with a key, only when there is no data.
    @inlinable
    public func ensureQueryData<Request: Sendable, Value: Sendable>(
        _ definition: QueryDefinition<Request, Value>, _ request: Request, revalidateIfStale: Bool = false
    ) async throws -> Value {
        let options = definition.options
        let fetcher = definition.fetcher
        return try await ensureQueryData(
            definition.key(for: request), staleTime: options.staleTime, revalidateIfStale: revalidateIfStale,
            retry: options.retry ?? .never, networkMode: options.networkMode, tags: options.tags,
            gcTime: options.gcTime
        ) { try await fetcher(request) }
    }

    /// `ensureQueryData` of a definition without a request.
    @inlinable
    public func ensureQueryData<Value: Sendable>(
        _ definition: QueryDefinition<Void, Value>, revalidateIfStale: Bool = false
    ) async throws -> Value {
        try await ensureQueryData(definition, (), revalidateIfStale: revalidateIfStale)
    }

    /// The cached data of `request`'s entry under `definition`, typed by it (`getQueryData(_:as:)`).
    ///
    /// - Throws: `QueryError.typeMismatch` when another writer stored a value of another type under the key.
    @inlinable
    public func getQueryData<Request: Sendable, Value: Sendable>(
        _ definition: QueryDefinition<Request, Value>, _ request: Request
    ) throws -> Value? {
        try getQueryData(definition.key(for: request), as: Value.self)
    }

    /// The cached data of a definition without a request.
    @inlinable
    public func getQueryData<Value: Sendable>(_ definition: QueryDefinition<Void, Value>) throws -> Value? {
        try getQueryData(definition, ())
    }

    /// Writes `value` as the data of `request`'s entry under `definition` (`setQueryData(_:for:updatedAt:)`).
    public func setQueryData<Request: Sendable, Value: Sendable>(
        _ value: Value, for definition: QueryDefinition<Request, Value>, _ request: Request,
        updatedAt: SchedulerInstant? = nil
    ) {
        setQueryData(value, for: definition.key(for: request), updatedAt: updatedAt)
    }

    /// Writes `value` as the data of a definition without a request.
    public func setQueryData<Value: Sendable>(
        _ value: Value, for definition: QueryDefinition<Void, Value>, updatedAt: SchedulerInstant? = nil
    ) {
        setQueryData(value, for: definition.key, updatedAt: updatedAt)
    }

    /// The snapshot of `request`'s entry under `definition`, typed by it (`snapshot(for:as:)`).
    ///
    /// - Throws: `QueryError.typeMismatch` when another writer stored a value of another type under the key.
    public func snapshot<Request: Sendable, Value: Sendable>(
        for definition: QueryDefinition<Request, Value>, _ request: Request
    ) throws -> QuerySnapshot<Value> {
        try snapshot(for: definition.key(for: request), as: Value.self)
    }

    /// The snapshot of a definition without a request.
    public func snapshot<Value: Sendable>(for definition: QueryDefinition<Void, Value>) throws -> QuerySnapshot<Value> {
        try snapshot(for: definition, ())
    }

    /// Invalidates every entry of `definition`: its base key as prefix, so every request's entry
    /// (`invalidateQueries(_:exact:filter:refetchType:)`). Returns at once.
    @discardableResult
    public func invalidateQueries<Request: Sendable, Value: Sendable>(
        _ definition: QueryDefinition<Request, Value>, filter: QueryFilter = .all, refetchType: RefetchType = .active
    ) -> StartedRefetches {
        invalidateQueries(definition.baseKey, filter: filter, refetchType: refetchType)
    }
}
