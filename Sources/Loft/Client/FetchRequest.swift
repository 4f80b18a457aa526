/// One fetch as the cache entry runs it: the type-erased fetcher and how to treat its result.
package struct FetchRequest: Sendable {
    /// Produces the value; runs in a tracked task and is cancelled with it.
    package var fetch: @Sendable () async throws -> any Sendable
    package var retry: RetryPolicy
    package var structuralSharing: Bool
    package var reason: FetchReason
    /// An explicit refetch cancels an in-flight fetch of an entry that has data; triggers join it.
    package var cancelsInFlight: Bool
    /// What the fetch is for, shown in the entry's snapshot while it runs (an infinite query's direction).
    package var meta: (any Sendable)?

    package init(
        fetch: @escaping @Sendable () async throws -> any Sendable,
        retry: RetryPolicy,
        structuralSharing: Bool,
        reason: FetchReason,
        cancelsInFlight: Bool,
        meta: (any Sendable)? = nil
    ) {
        self.fetch = fetch
        self.retry = retry
        self.structuralSharing = structuralSharing
        self.reason = reason
        self.cancelsInFlight = cancelsInFlight
        self.meta = meta
    }
}
