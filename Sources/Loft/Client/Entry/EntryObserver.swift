/// What the state machine of an entry knows of one observer (a query or consumer): the options that decide
/// its triggers and freshness, and how to make it refetch.
package struct EntryObserver: Sendable {
    /// Data written when the entry has none, and again by `resetQueries`.
    package struct InitialData: Sendable {
        package let value: any Sendable
        /// When it counts as fetched; nil: when it is written.
        package let updatedAt: SchedulerInstant?

        package init(value: any Sendable, updatedAt: SchedulerInstant?) {
            self.value = value
            self.updatedAt = updatedAt
        }
    }

    /// A disabled observer does not count as active: bulk operations and triggers leave it alone.
    package var isEnabled: Bool
    /// The observer's own `staleTime`, or, when it does not judge freshness, the one it falls back on.
    package var staleTime: StaleTime
    /// Whether `staleTime` is the observer's own (a query's, a consumer's given one); a consumer without one
    /// judges freshness as the key's other observers do (`ObserverTally.staleTime`).
    package var judgesFreshness: Bool
    package var gcTime: GCTime
    package var refetchOnFocus: RefetchTrigger
    package var refetchOnReconnect: RefetchTrigger
    package var initialData: Boxed<InitialData>?
    /// Starts a fetch with the observer's own fetcher and request (invalidation, focus, reconnect); nil for a
    /// consumer, which cannot fetch.
    package var refetch: (@Sendable (FetchReason) -> Void)?
    /// Refetches with another request (a mutation's `.newData(request)`); returns false when the request is not
    /// of the observer's type.
    package var refetchWithRequest: (@Sendable (any Sendable) -> Bool)?
    /// Called once the entry is removed from its client, so that the observer can follow its key.
    package var entryRemoved: (@Sendable () -> Void)?

    package init(
        isEnabled: Bool = true,
        staleTime: StaleTime = .zero,
        judgesFreshness: Bool = true,
        gcTime: GCTime = .seconds(300),
        refetchOnFocus: RefetchTrigger = .never,
        refetchOnReconnect: RefetchTrigger = .never,
        initialData: Boxed<InitialData>? = nil,
        refetch: (@Sendable (FetchReason) -> Void)? = nil,
        refetchWithRequest: (@Sendable (any Sendable) -> Bool)? = nil
    ) {
        self.isEnabled = isEnabled
        self.staleTime = staleTime
        self.judgesFreshness = judgesFreshness
        self.gcTime = gcTime
        self.refetchOnFocus = refetchOnFocus
        self.refetchOnReconnect = refetchOnReconnect
        self.initialData = initialData
        self.refetch = refetch
        self.refetchWithRequest = refetchWithRequest
    }
}
