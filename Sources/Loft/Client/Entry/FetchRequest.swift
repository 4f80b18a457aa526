/// One fetch as the cache entry runs it: the type-erased fetcher and how to treat its result. Its one-byte
/// fields sit together, before the optional ones: every entry keeps its last request (row (i)).
package struct FetchRequest: Sendable {
    /// Produces the value; runs in a tracked task and is cancelled with it. Kept as the caller gave it, typed,
    /// and erased when it runs: erasing it up front wrapped it in a closure, one allocation more per request,
    /// which every entry keeps (row (i)) and every caller of a shared fetch made (row (e)).
    package var fetcher: any ErasedFetcher
    package var retry: RetryPolicy
    package var networkMode: NetworkMode
    package var structuralSharing: Bool
    package var reason: FetchReason
    /// The fetcher reacts to cancellation: when the last observer leaves, the fetch is cancelled (and the state
    /// restored) instead of being left to finish.
    package var cancelsWhenUnobserved: Bool
    /// The persistent cache was asked already (`.useInsteadOfFetching`) and had nothing valid.
    package var hasCheckedStore = false
    /// What the fetch is for, shown in the entry's snapshot while it runs (an infinite query's direction).
    package var meta: (any Sendable)? {
        get { metaBox?.value }
        set { metaBox = newValue.map { Boxed($0) } }
    }
    /// `meta`, kept out of line: every entry keeps its last request, and most requests have none (row (i)).
    private var metaBox: Boxed<any Sendable>?
    /// How long the entry stays once unused, as a caller (`fetchQuery(gcTime:)`) asks; the entry keeps the
    /// longest it was told, as for observers. To the nanosecond.
    package var gcTime: GCTime? {
        get { packedGCTime.gcTime }
        set { packedGCTime = PackedGCTime(newValue) }
    }
    /// `gcTime` in 8 bytes: with it the request is 80 bytes, and its box (every entry keeps its last request) a
    /// 112-byte malloc chunk instead of 128 (row (i)).
    private var packedGCTime = PackedGCTime(nil)

    package init<Value: Sendable>(
        fetch: @escaping @Sendable () async throws -> Value,
        retry: RetryPolicy,
        networkMode: NetworkMode = .online,
        structuralSharing: Bool,
        reason: FetchReason,
        cancelsWhenUnobserved: Bool = false,
        meta: (any Sendable)? = nil
    ) {
        fetcher = TypedFetcher(fetch: fetch)
        self.retry = retry
        self.networkMode = networkMode
        self.structuralSharing = structuralSharing
        self.reason = reason
        self.cancelsWhenUnobserved = cancelsWhenUnobserved
        metaBox = meta.map { Boxed($0) }
    }
}

/// A fetcher whose value the entry takes erased (`FetchRequest.fetcher`).
package protocol ErasedFetcher: Sendable {
    /// Runs the fetcher and returns its value erased.
    func fetchErased() async throws -> any Sendable
}

/// A typed fetcher kept as given: its closure fits the existential's inline buffer, so a request holds it
/// without an allocation of its own.
struct TypedFetcher<Value: Sendable>: ErasedFetcher {
    let fetch: @Sendable () async throws -> Value

    func fetchErased() async throws -> any Sendable {
        try await fetch()
    }
}
