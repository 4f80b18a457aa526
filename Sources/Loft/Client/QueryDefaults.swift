/// The options every query of a client starts from (or, with `QueryClient.setQueryDefaults(_:for:)`, every
/// query under a key prefix); a query's own `QueryOptions` override them.
public struct QueryDefaults: Sendable {
    /// How long data stays fresh after it was fetched. Default 0: stale at once, refetched on the next trigger.
    public var staleTime: StaleTime
    /// How long an unused entry stays cached after its last observer left. Default 300 s.
    public var gcTime: GCTime
    /// When failed fetches are retried. Default: 3 retries, 1 s doubling, capped at 30 s.
    public var retry: RetryPolicy
    /// Whether an `Equatable` value equal to the old one keeps the old one and notifies nobody. Default true.
    public var structuralSharing: Bool
    /// Whether a query that appears refetches stale data. Default `.ifStale`.
    public var refetchOnAppear: RefetchTrigger
    /// Whether the app regaining focus refetches stale data. Default `.ifStale`.
    public var refetchOnFocus: RefetchTrigger
    /// Whether the network coming back refetches stale data. Default `.ifStale`.
    public var refetchOnReconnect: RefetchTrigger
    /// When fetches may run, given the network. Default `.online`: paused while offline.
    public var networkMode: NetworkMode

    /// Makes defaults; every argument has TanStack Query's default.
    public init(
        staleTime: StaleTime = .zero,
        gcTime: GCTime = .seconds(300),
        retry: RetryPolicy = .default,
        structuralSharing: Bool = true,
        refetchOnAppear: RefetchTrigger = .ifStale,
        refetchOnFocus: RefetchTrigger = .ifStale,
        refetchOnReconnect: RefetchTrigger = .ifStale,
        networkMode: NetworkMode = .online
    ) {
        self.staleTime = staleTime
        self.gcTime = gcTime
        self.retry = retry
        self.structuralSharing = structuralSharing
        self.refetchOnAppear = refetchOnAppear
        self.refetchOnFocus = refetchOnFocus
        self.refetchOnReconnect = refetchOnReconnect
        self.networkMode = networkMode
    }
}

/// Whether a trigger (appear, focus, reconnect) refetches.
public enum RefetchTrigger: Sendable, Hashable {
    /// Always refetch, even fresh data.
    case always
    /// Refetch only stale data (the default).
    case ifStale
    /// Never refetch on this trigger.
    case never

    /// Whether data with this staleness is refetched.
    public func refetches(isStale: Bool) -> Bool {
        switch self {
        case .always: true
        case .ifStale: isStale
        case .never: false
        }
    }
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
