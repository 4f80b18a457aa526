/// How one query behaves; every option left nil takes the client's default (`QueryDefaults`).
///
/// ```swift
/// QueryOptions<[Repo]>(staleTime: .seconds(30), placeholderData: .keepPrevious)
/// ```
public struct QueryOptions<Value: Sendable>: Sendable {
    /// How long data stays fresh. Default: the client's (0).
    public var staleTime: Duration?
    /// How long the entry stays cached after its last observer left. Default: the client's (300 s).
    public var gcTime: Duration?
    /// When failed fetches are retried. Default: the client's (3 retries, 1 s doubling, capped at 30 s).
    public var retry: RetryPolicy?
    /// False stops every automatic fetch (appear, invalidation, polling); an explicit `refetch` still fetches.
    /// A disabled query with no data is pending and idle. Default true.
    public var enabled: Bool
    /// Transforms the cached value for this query only (the cache keeps the raw value). Default none.
    public var select: (@Sendable (Value) -> Value)?
    /// What to show while there is no data; never written to the cache. Default none.
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
    /// Whether polling goes on while the app is in the background. Default false.
    public var refetchIntervalInBackground: Bool
    /// Whether an equal refetched value keeps the old one and notifies nobody. Default: the client's (true).
    public var structuralSharing: Bool?
    /// Free-form information for your own code (loggers, devtools). Default empty.
    public var meta: [String: String]

    /// Makes options; every argument defaults to the client's default or to "off".
    public init(
        staleTime: Duration? = nil,
        gcTime: Duration? = nil,
        retry: RetryPolicy? = nil,
        enabled: Bool = true,
        select: (@Sendable (Value) -> Value)? = nil,
        placeholderData: PlaceholderData<Value>? = nil,
        initialData: Value? = nil,
        initialDataUpdatedAt: SchedulerInstant? = nil,
        refetchOnAppear: RefetchTrigger? = nil,
        refetchOnFocus: RefetchTrigger? = nil,
        refetchOnReconnect: RefetchTrigger? = nil,
        refetchIntervalInBackground: Bool = false,
        structuralSharing: Bool? = nil,
        meta: [String: String] = [:]
    ) {
        self.staleTime = staleTime
        self.gcTime = gcTime
        self.retry = retry
        self.enabled = enabled
        self.select = select
        self.placeholderData = placeholderData
        self.initialData = initialData
        self.initialDataUpdatedAt = initialDataUpdatedAt
        self.refetchOnAppear = refetchOnAppear
        self.refetchOnFocus = refetchOnFocus
        self.refetchOnReconnect = refetchOnReconnect
        self.refetchIntervalInBackground = refetchIntervalInBackground
        self.structuralSharing = structuralSharing
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
