/// The options every query of a client starts from (or, with `QueryClient.setQueryDefaults(_:for:)`, every
/// query under a key prefix); a query's own `QueryOptions` override them.
///
/// ```swift
/// client.setQueryDefaults(QueryDefaults(staleTime: .seconds(60)), for: "todos")
/// client.setQueryDefaults(QueryDefaults(retry: .never), for: ["todos", "detail"])
/// // ["todos", "detail", 7]: staleTime 60 s (from "todos") and no retries (from ["todos", "detail"]).
/// ```
///
/// **Behavior**
/// - Defaults merge field by field: a field left out (nil) is taken from a shorter prefix that sets it, then
///   from the client's defaults, then from the built-in default each property names.
/// - Reading a property gives the value that applies: the one set, else the built-in default.
public struct QueryDefaults: Sendable {
    /// The fields as given: nil where these defaults say nothing.
    private var set: Fields

    private struct Fields: Sendable {
        var staleTime: StaleTime?
        var gcTime: GCTime?
        var retry: RetryPolicy?
        var structuralSharing: Bool?
        var refetchOnAppear: RefetchTrigger?
        var refetchOnFocus: RefetchTrigger?
        var refetchOnReconnect: RefetchTrigger?
        var networkMode: NetworkMode?
        var enabled: Bool?
        var pollingBehavior: PollingBehavior?
        var refetchIntervalInBackground: Bool?
    }

    /// How long data stays fresh after it was fetched. Default 0: stale at once, refetched on the next trigger.
    public var staleTime: StaleTime {
        get { set.staleTime ?? .zero }
        set { set.staleTime = newValue }
    }
    /// How long an unused entry stays cached after its last observer left. Default 300 s.
    public var gcTime: GCTime {
        get { set.gcTime ?? .seconds(300) }
        set { set.gcTime = newValue }
    }
    /// When failed fetches are retried. Default: 3 retries, 1 s doubling, capped at 30 s.
    public var retry: RetryPolicy {
        get { set.retry ?? .default }
        set { set.retry = newValue }
    }
    /// Whether an `Equatable` value equal to the old one keeps the old one and notifies nobody. Default true.
    public var structuralSharing: Bool {
        get { set.structuralSharing ?? true }
        set { set.structuralSharing = newValue }
    }
    /// Whether a query that appears refetches stale data. Default `.ifStale`.
    public var refetchOnAppear: RefetchTrigger {
        get { set.refetchOnAppear ?? .ifStale }
        set { set.refetchOnAppear = newValue }
    }
    /// Whether the app regaining focus refetches stale data. Default `.ifStale`.
    public var refetchOnFocus: RefetchTrigger {
        get { set.refetchOnFocus ?? .ifStale }
        set { set.refetchOnFocus = newValue }
    }
    /// Whether the network coming back refetches stale data. Default `.ifStale`, but `.never` under
    /// `networkMode` `.always` (such a query does not depend on the network; TanStack's default too).
    public var refetchOnReconnect: RefetchTrigger {
        get { refetchOnReconnect(under: networkMode) }
        set { set.refetchOnReconnect = newValue }
    }
    /// When fetches may run, given the network. Default `.online`: paused while offline.
    public var networkMode: NetworkMode {
        get { set.networkMode ?? .online }
        set { set.networkMode = newValue }
    }
    /// Whether queries fetch on their own (`QueryOptions.enabled`). Default true.
    public var enabled: Bool {
        get { set.enabled ?? true }
        set { set.enabled = newValue }
    }
    /// Whether and how often queries poll (`QueryOptions.pollingBehavior`). Default `.noPolling`.
    public var pollingBehavior: PollingBehavior {
        get { set.pollingBehavior ?? .noPolling }
        set { set.pollingBehavior = newValue }
    }
    /// Whether polling goes on while the app is in the background. Default false.
    public var refetchIntervalInBackground: Bool {
        get { set.refetchIntervalInBackground ?? false }
        set { set.refetchIntervalInBackground = newValue }
    }

    /// Makes defaults; an argument left nil says nothing: a shorter prefix's, the client's or the built-in
    /// default applies (the built-in ones are TanStack Query's).
    public init(
        staleTime: StaleTime? = nil,
        gcTime: GCTime? = nil,
        retry: RetryPolicy? = nil,
        structuralSharing: Bool? = nil,
        refetchOnAppear: RefetchTrigger? = nil,
        refetchOnFocus: RefetchTrigger? = nil,
        refetchOnReconnect: RefetchTrigger? = nil,
        networkMode: NetworkMode? = nil,
        enabled: Bool? = nil,
        pollingBehavior: PollingBehavior? = nil,
        refetchIntervalInBackground: Bool? = nil
    ) {
        set = Fields(
            staleTime: staleTime, gcTime: gcTime, retry: retry, structuralSharing: structuralSharing,
            refetchOnAppear: refetchOnAppear, refetchOnFocus: refetchOnFocus, refetchOnReconnect: refetchOnReconnect,
            networkMode: networkMode, enabled: enabled, pollingBehavior: pollingBehavior,
            refetchIntervalInBackground: refetchIntervalInBackground)
    }

    /// These defaults with every field that `specific` sets taken from it (the longer prefix wins per field).
    public func merging(_ specific: QueryDefaults) -> QueryDefaults {
        let mine = set
        let theirs = specific.set
        var merged = self
        merged.set = Fields(
            staleTime: theirs.staleTime ?? mine.staleTime, gcTime: theirs.gcTime ?? mine.gcTime,
            retry: theirs.retry ?? mine.retry, structuralSharing: theirs.structuralSharing ?? mine.structuralSharing,
            refetchOnAppear: theirs.refetchOnAppear ?? mine.refetchOnAppear,
            refetchOnFocus: theirs.refetchOnFocus ?? mine.refetchOnFocus,
            refetchOnReconnect: theirs.refetchOnReconnect ?? mine.refetchOnReconnect,
            networkMode: theirs.networkMode ?? mine.networkMode, enabled: theirs.enabled ?? mine.enabled,
            pollingBehavior: theirs.pollingBehavior ?? mine.pollingBehavior,
            refetchIntervalInBackground: theirs.refetchIntervalInBackground ?? mine.refetchIntervalInBackground)
        return merged
    }

    /// `refetchOnReconnect` for a query whose network mode is `networkMode`: the one set, else `.ifStale`, or
    /// `.never` under `.always`.
    func refetchOnReconnect(under networkMode: NetworkMode) -> RefetchTrigger {
        set.refetchOnReconnect ?? networkMode.defaultRefetchOnReconnect
    }
}

/// Whether a trigger (appear, focus, reconnect) refetches.
public enum RefetchTrigger: Sendable, Hashable {
    /// Always refetch, even fresh data (but `.static` data: only missing data is fetched).
    case always
    /// Refetch only stale data (the default).
    case ifStale
    /// Never refetch on this trigger.
    case never
}

/// Which entries an invalidation refetches (all matching entries are marked stale either way). A disabled
/// entry (every observer disabled, or never fetched) is never refetched.
public enum RefetchType: String, Sendable, Hashable, Codable {
    /// Entries with an enabled observer (the default).
    case active
    /// Entries without one that were fetched before (with their last request).
    case inactive
    /// Both.
    case all
    /// None: only mark them stale.
    case none
}
