/// How one query behaves; every option left nil takes the client's default (`QueryDefaults`).
///
/// ```swift
/// QueryOptions<[Repo]>(staleTime: .seconds(30), placeholderData: .keepPrevious)
/// ```
public struct QueryOptions<Value: Sendable>: Sendable {
    /// How long data stays fresh (`.infinity`: until invalidated; `.static`: for good). Default: the client's
    /// (0).
    public var staleTime: StaleTime?
    /// How long the entry stays cached after its last observer left (`.infinity`: never collected). Default:
    /// the client's (300 s).
    public var gcTime: GCTime?
    /// When failed fetches are retried. Default: the client's (3 retries, 1 s doubling, capped at 30 s).
    public var retry: RetryPolicy?
    /// When fetches may run, given the network (`.online`: paused while offline). Default: the client's.
    public var networkMode: NetworkMode?
    /// False stops every automatic fetch (appear, invalidation, focus, reconnect, polling, bulk refetches); an
    /// explicit `refetch` still fetches. A disabled query with no data is pending and idle, and is never stale.
    /// Change it on a live query with `Query.setEnabled(_:)`. Default: the client's (true).
    public var enabled: Bool?
    /// Transforms the cached value for this query only (the cache keeps the raw value); runs once per new
    /// value, not again when a refetch returns an equal one. To change the type, see `Query.select(_:)`.
    /// Default none.
    public var select: (@Sendable (Value) -> Value)?
    /// What to show while the entry has no data and no error; never written to the cache. It goes through
    /// `select`, and while it shows, `status` is `.success` with `isPlaceholderData`. Default none.
    public var placeholderData: PlaceholderData<Value>?
    /// Data written to the cache when the entry has none, as if fetched at `initialDataUpdatedAt` (default:
    /// now, so `staleTime` applies to it).
    public var initialData: Value?
    /// When the initial data counts as fetched. Default: when the query is created.
    public var initialDataUpdatedAt: SchedulerInstant?
    /// Whether appearing refetches. Default: the client's (`.ifStale`).
    public var refetchOnAppear: RefetchTrigger?
    /// Whether regaining focus refetches. Default: the client's (`.ifStale`).
    public var refetchOnFocus: RefetchTrigger?
    /// Whether the network coming back refetches. Default: the client's (`.ifStale`).
    public var refetchOnReconnect: RefetchTrigger?
    /// Whether and how often the query refetches on a timer (`.pollEvery(interval)`); changed on a live query
    /// by `Query.setOptions(_:)`, which restarts the timer. Default: the client's (`.noPolling`).
    public var pollingBehavior: PollingBehavior?
    /// Whether polling goes on while the app is in the background. Default: the client's (false).
    public var refetchIntervalInBackground: Bool?
    /// Whether an equal refetched value keeps the old one and notifies nobody. Default: the client's (true).
    public var structuralSharing: Bool?
    /// Whether the fetcher reacts to cancellation: then, when the last observer leaves, the fetch in flight is
    /// cancelled and the state from before it restored. Default false: the fetch finishes and is cached (its
    /// retries stop), as TanStack does for a fetcher that ignores its abort signal.
    public var cancelWhenUnobserved: Bool
    /// Labels that mutations invalidate this query's entry by (`MutationOptions.invalidates`,
    /// `QueryClient.invalidateQueries(tagged:)`), whatever its key. The entry keeps the tags of every query
    /// that observed it until it is removed. Default none.
    public var tags: [QueryTag]
    /// Free-form information for your own code (loggers, devtools). Default empty.
    public var meta: [String: String]

    /// Makes options; every argument defaults to the client's default or to "off".
    public init(
        staleTime: StaleTime? = nil,
        gcTime: GCTime? = nil,
        retry: RetryPolicy? = nil,
        networkMode: NetworkMode? = nil,
        enabled: Bool? = nil,
        select: (@Sendable (Value) -> Value)? = nil,
        placeholderData: PlaceholderData<Value>? = nil,
        initialData: Value? = nil,
        initialDataUpdatedAt: SchedulerInstant? = nil,
        refetchOnAppear: RefetchTrigger? = nil,
        refetchOnFocus: RefetchTrigger? = nil,
        refetchOnReconnect: RefetchTrigger? = nil,
        pollingBehavior: PollingBehavior? = nil,
        refetchIntervalInBackground: Bool? = nil,
        structuralSharing: Bool? = nil,
        cancelWhenUnobserved: Bool = false,
        tags: [QueryTag] = [],
        meta: [String: String] = [:]
    ) {
        self.staleTime = staleTime
        self.gcTime = gcTime
        self.retry = retry
        self.networkMode = networkMode
        self.enabled = enabled
        self.select = select
        self.placeholderData = placeholderData
        self.initialData = initialData
        self.initialDataUpdatedAt = initialDataUpdatedAt
        self.refetchOnAppear = refetchOnAppear
        self.refetchOnFocus = refetchOnFocus
        self.refetchOnReconnect = refetchOnReconnect
        self.pollingBehavior = pollingBehavior
        self.refetchIntervalInBackground = refetchIntervalInBackground
        self.structuralSharing = structuralSharing
        self.cancelWhenUnobserved = cancelWhenUnobserved
        self.tags = tags
        self.meta = meta
    }
}

/// What a query shows while its entry has no data. Placeholder data is never written to the cache.
public enum PlaceholderData<Value: Sendable>: Sendable {
    /// A fixed value.
    case value(Value)
    /// The data the query showed for its previous key (for a key adapter: the previous page or user), until
    /// the new key has data.
    case keepPrevious
    /// A value computed from the previous key's data, if any.
    case compute(@Sendable (_ previous: Value?) -> Value?)
}
