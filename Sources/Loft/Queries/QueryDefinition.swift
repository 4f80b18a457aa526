/// A query declared once: its key (or base key and key adapter), its fetcher and its options, in one value
/// that every API taking a key and a type also takes, so that the data's type follows the key (TanStack
/// Query's `queryOptions`). A typo in a key, or a value of the wrong type, becomes a compile error.
///
/// ```swift
/// enum Queries {
///     static let profile = QueryDefinition<Int, Profile>(
///         key: "profile", keyAdapter: { key, id in key.appending(id) },
///         options: QueryOptions(staleTime: .seconds(60))
///     ) { id in try await api.profile(id) }
/// }
///
/// let query = Query(Queries.profile, behavior: .startImmediately(42))
/// let cached = try client.getQueryData(Queries.profile, 42)   // Profile?, no `as:`
/// client.invalidateQueries(Queries.profile)                    // every profile: the base key as prefix
/// ```
///
/// **Behavior**
/// - A definition is a value: it holds no state and starts nothing. Each API that takes it does what the same
///   API does with its key, its fetcher and its options spelled out (the same paths, the same cost).
/// - `key(for:)` is the entry's key of a request: the key adapter's, else the base key.
/// - The read-through calls (`fetchQuery`, `prefetchQuery`, `ensureQueryData`) take the options' `staleTime`,
///   `gcTime`, `networkMode` and `tags`, and `retry` (default `.never`, as for those calls with a key).
public struct QueryDefinition<Request: Sendable, Value: Sendable>: Sendable {
    /// The key of the data; with `keyAdapter`, the base of each request's key (and the prefix that
    /// `invalidateQueries(_:)` invalidates).
    public let baseKey: QueryKey
    /// Makes a request's key from the base key; nil: every request shares `baseKey`.
    public let keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)?
    /// Fetches the value of a request.
    public let fetcher: @Sendable (Request) async throws -> Value
    /// Freshness, retries, `enabled`, `select`… as a `Query` takes them.
    public var options: QueryOptions<Value>

    /// Declares a query.
    ///
    /// - Parameters:
    ///   - key: the key of the data; with `keyAdapter`, the base of each request's key.
    ///   - keyAdapter: makes a request's key (`{ key, id in key.appending(id) }`). Default: every request shares
    ///     `key`.
    ///   - options: the query's options. Default: the client's.
    ///   - fetcher: fetches the value of a request.
    public init(
        key: QueryKey,
        keyAdapter: (@Sendable (QueryKey, Request) -> QueryKey)? = nil,
        options: QueryOptions<Value> = QueryOptions(),
        fetcher: @escaping @Sendable (Request) async throws -> Value
    ) {
        baseKey = key
        self.keyAdapter = keyAdapter
        self.options = options
        self.fetcher = fetcher
    }

    /// The key of `request`'s entry: the key adapter's, else the base key.
    @inlinable
    public func key(for request: Request) -> QueryKey {
        keyAdapter.map { $0(baseKey, request) } ?? baseKey
    }
}

extension QueryDefinition where Request == Void {
    /// Declares a query without a request.
    ///
    /// - Parameters: as `init(key:keyAdapter:options:fetcher:)`.
    public init(
        key: QueryKey, options: QueryOptions<Value> = QueryOptions(),
        fetcher: @escaping @Sendable () async throws -> Value
    ) {
        self.init(key: key, keyAdapter: nil, options: options) { _ in try await fetcher() }
    }

    /// The key of its entry.
    public var key: QueryKey {
        baseKey
    }
}

extension Query {
    /// Makes the query that `definition` declares: its key, key adapter, options and fetcher.
    ///
    /// - Parameters:
    ///   - definition: the query's declaration.
    ///   - behavior: as `init(key:...)`. Default `.startWhenRequested`.
    ///   - pollingBehavior: as `init(key:...)`. Default: the definition's options'.
    ///   - cache: the persistent cache of its data. Default: the client's.
    ///   - cacheConfig: how the persistent cache is used. Default: the client's.
    ///   - client: the cache. Default `QueryClient.shared`.
    public convenience init(
        _ definition: QueryDefinition<Request, Response>,
        behavior: QueryBehavior<Request> = .startWhenRequested,
        pollingBehavior: PollingBehavior? = nil,
        cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil,
        client: QueryClient = .shared
    ) {
        self.init(
            key: definition.baseKey, keyAdapter: definition.keyAdapter, behavior: behavior,
            pollingBehavior: pollingBehavior, options: definition.options, cache: cache, cacheConfig: cacheConfig,
            client: client, fetcher: definition.fetcher)
    }
}

extension Query.Selection where Value == Response {
    /// Observes the entry of `request` under `definition`, with the definition's options (its `staleTime`
    /// judges `isStale`, its `select` shapes the value).
    ///
    /// - Parameters:
    ///   - definition: the query's declaration.
    ///   - request: the request whose entry to observe.
    ///   - client: the cache. Default `QueryClient.shared`.
    public convenience init<DefinedRequest>(
        _ definition: QueryDefinition<DefinedRequest, Response>, _ request: DefinedRequest,
        client: QueryClient = .shared
    ) {
        self.init(key: definition.key(for: request), options: definition.options, client: client)
    }
}

extension Query.Selection where Value == Response, Request == Void {
    /// Observes the entry of `definition`, a query without a request.
    public convenience init(_ definition: QueryDefinition<Void, Response>, client: QueryClient = .shared) {
        self.init(definition, (), client: client)
    }
}
