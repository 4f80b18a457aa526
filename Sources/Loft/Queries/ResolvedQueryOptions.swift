/// A query's options with every default filled in, for one key (the client's defaults, or those set for a
/// prefix of the key).
struct ResolvedQueryOptions: Sendable {
    var staleTime: StaleTime
    /// Whether `staleTime` was given in the options (not taken from the defaults).
    var hasOwnStaleTime: Bool
    var gcTime: GCTime
    var retry: RetryPolicy
    var networkMode: NetworkMode
    var structuralSharing: Bool
    var refetchOnAppear: RefetchTrigger
    var refetchOnFocus: RefetchTrigger
    var refetchOnReconnect: RefetchTrigger
    var isEnabled: Bool
    var cancelWhenUnobserved: Bool
    var refetchIntervalInBackground: Bool
    var pollingBehavior: PollingBehavior

    init<Value>(_ options: QueryOptions<Value>, defaults: QueryDefaults) {
        staleTime = options.staleTime ?? defaults.staleTime
        hasOwnStaleTime = options.staleTime != nil
        gcTime = options.gcTime ?? defaults.gcTime
        retry = options.retry ?? defaults.retry
        networkMode = options.networkMode ?? defaults.networkMode
        structuralSharing = options.structuralSharing ?? defaults.structuralSharing
        refetchOnAppear = options.refetchOnAppear ?? defaults.refetchOnAppear
        refetchOnFocus = options.refetchOnFocus ?? defaults.refetchOnFocus
        refetchOnReconnect = options.refetchOnReconnect ?? defaults.refetchOnReconnect(under: networkMode)
        isEnabled = options.enabled ?? defaults.enabled
        cancelWhenUnobserved = options.cancelWhenUnobserved
        refetchIntervalInBackground = options.refetchIntervalInBackground ?? defaults.refetchIntervalInBackground
        pollingBehavior = options.pollingBehavior ?? defaults.pollingBehavior
    }

    /// Whether an observer with these options and `callbacks` judges freshness by its own `staleTime`: a query
    /// does (its options' or its defaults'); a consumer only when given one, else it judges as the key's
    /// queries do (`ObserverTally.staleTime`), so observing never makes fresh data stale.
    func judgesFreshness(_ callbacks: ObserverCallbacks) -> Bool {
        hasOwnStaleTime || callbacks.refetch != nil
    }

    /// What the entry's state machine knows of an observer with these options.
    func observer(_ callbacks: ObserverCallbacks, initialData: Boxed<EntryObserver.InitialData>?) -> EntryObserver {
        EntryObserver(
            isEnabled: isEnabled, staleTime: staleTime, judgesFreshness: judgesFreshness(callbacks), gcTime: gcTime,
            refetchOnFocus: refetchOnFocus,
            refetchOnReconnect: refetchOnReconnect, initialData: initialData, refetch: callbacks.refetch,
            refetchWithRequest: callbacks.refetchWithRequest)
    }
}

/// How an entry makes a query refetch; none for a consumer.
struct ObserverCallbacks: Sendable {
    var refetch: (@Sendable (FetchReason) -> Void)?
    var refetchWithRequest: (@Sendable (any Sendable) -> Bool)?
}
