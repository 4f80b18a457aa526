/// One fetch as the cache entry runs it: the fetcher, with the settings it runs with (one object, shared by
/// every copy of the request and kept by the entry to fetch again), and what this one call adds (`FetchCall`:
/// why, whether the persistent cache was asked, the caller's `gcTime`).
package struct FetchRequest: Sendable {
    /// Produces the value, with how to treat it; runs in a tracked task and is cancelled with it.
    package let fetcher: any ErasedFetcher
    package var call: FetchCall

    package var reason: FetchReason {
        get { call.reason }
        set { call.reason = newValue }
    }
    /// The persistent cache was asked already (`.useInsteadOfFetching`) and had nothing valid.
    package var hasCheckedStore: Bool {
        get { call.hasCheckedStore }
        set { call.hasCheckedStore = newValue }
    }
    /// How long the entry stays once unused, as a caller (`fetchQuery(gcTime:)`) asks.
    package var gcTime: GCTime? {
        get { call.gcTime }
        set { call.gcTime = newValue }
    }

    package var retry: RetryPolicy { fetcher.settings.retry }
    package var networkMode: NetworkMode { fetcher.settings.networkMode }
    package var structuralSharing: Bool { fetcher.settings.structuralSharing }
    /// The fetcher reacts to cancellation: when the last observer leaves, the fetch is cancelled (and the state
    /// restored) instead of being left to finish.
    package var cancelsWhenUnobserved: Bool { fetcher.settings.cancelsWhenUnobserved }
    /// What the fetch is for, shown in the entry's snapshot while it runs (an infinite query's direction).
    package var meta: (any Sendable)? { fetcher.meta }

    package init<Value: Sendable>(
        fetch: @escaping @Sendable () async throws -> Value,
        retry: RetryPolicy,
        networkMode: NetworkMode = .online,
        structuralSharing: Bool,
        reason: FetchReason,
        cancelsWhenUnobserved: Bool = false,
        meta: (any Sendable)? = nil
    ) {
        fetcher = Self.fetcher(
            fetch, retry: retry, networkMode: networkMode, structuralSharing: structuralSharing,
            cancelsWhenUnobserved: cancelsWhenUnobserved, meta: meta)
        call = FetchCall(reason: reason)
    }

    /// The fetcher object of `fetch` with its settings: a `DescribedFetcher` with a `meta`, else a
    /// `TypedFetcher`.
    package static func fetcher<Value: Sendable>(
        _ fetch: @escaping @Sendable () async throws -> Value, retry: RetryPolicy, networkMode: NetworkMode,
        structuralSharing: Bool, cancelsWhenUnobserved: Bool = false, meta: (any Sendable)? = nil
    ) -> any ErasedFetcher {
        let settings = FetchSettings(
            retry: retry, networkMode: networkMode, structuralSharing: structuralSharing,
            cancelsWhenUnobserved: cancelsWhenUnobserved)
        guard let meta else { return TypedFetcher(fetch: fetch, settings: settings) }
        return DescribedFetcher(fetch: fetch, settings: settings, meta: meta)
    }

    /// The request of `call` with `fetcher`: a read's, once the machine asks for its fetcher
    /// (`EntryStateMachine.Output.needsFetcher`).
    package init(fetcher: any ErasedFetcher, call: FetchCall) {
        self.fetcher = fetcher
        self.call = call
    }
}

/// How a fetcher's result is treated: the settings of the call that made it.
package struct FetchSettings: Sendable {
    let retry: RetryPolicy
    let networkMode: NetworkMode
    let structuralSharing: Bool
    let cancelsWhenUnobserved: Bool
}

/// A fetcher whose value the entry takes erased, with its settings (`FetchRequest.fetcher`). An object: every
/// entry keeps the last one it ran, and one object holding the caller's closure and the settings is a 64-byte
/// malloc chunk where a boxed request with the fetcher in an existential took 112 (row (i)).
package protocol ErasedFetcher: AnyObject, Sendable {
    var settings: FetchSettings { get }
    /// What the fetch is for (`FetchRequest.meta`).
    var meta: (any Sendable)? { get }
    /// Runs the fetcher and returns its value erased.
    func fetchErased() async throws -> any Sendable
}

/// A typed fetcher kept as given: the caller's closure, not wrapped in another one (which would be one
/// allocation more per request).
final class TypedFetcher<Value: Sendable>: ErasedFetcher {
    let fetch: @Sendable () async throws -> Value
    let settings: FetchSettings

    init(fetch: @escaping @Sendable () async throws -> Value, settings: FetchSettings) {
        self.fetch = fetch
        self.settings = settings
    }

    var meta: (any Sendable)? { nil }

    func fetchErased() async throws -> any Sendable {
        try await fetch()
    }
}

/// A typed fetcher with its `meta` (a query's request): a separate type, so that a `fetchQuery` fetcher, which
/// has none, stays in its 64-byte chunk.
final class DescribedFetcher<Value: Sendable>: ErasedFetcher {
    let fetch: @Sendable () async throws -> Value
    let settings: FetchSettings
    let meta: (any Sendable)?

    init(fetch: @escaping @Sendable () async throws -> Value, settings: FetchSettings, meta: any Sendable) {
        self.fetch = fetch
        self.settings = settings
        self.meta = meta
    }

    func fetchErased() async throws -> any Sendable {
        try await fetch()
    }
}
