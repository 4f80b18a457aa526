/// What data a query has: nothing yet, data, or an error. Orthogonal to `FetchStatus`.
public enum QueryStatus: String, Sendable, Hashable, Codable {
    /// No data yet (never fetched, or fetching for the first time, or disabled).
    case pending
    /// The last fetch succeeded; `data` is set.
    case success
    /// The last fetch failed; `error` is set, and `data` may still hold the last good value.
    case error
}

/// What the network is doing for a query. Orthogonal to `QueryStatus`.
public enum FetchStatus: String, Sendable, Hashable, Codable {
    /// No fetch is running.
    case idle
    /// A fetch is running (or waiting to retry).
    case fetching
    /// A fetch wants to run but is held back (offline).
    case paused
}

/// Why a fetch happened; every fetch records its reason in the client's `events`.
public enum FetchReason: String, Sendable, Hashable, Codable {
    /// The first use of a key that had no data.
    case firstUse
    /// A query appeared (was created or re-attached) while its data was stale.
    case appear
    /// The app regained focus.
    case focus
    /// The network came back.
    case reconnect
    /// A polling interval elapsed.
    case interval
    /// The key was invalidated while it had active observers.
    case invalidation
    /// Code asked for it: `refetch`, `fetchQuery`, `refetchQueries`, a mutation's invalidator.
    case manual
    /// `prefetchQuery` or `ensureQueryData`.
    case prefetch
}
