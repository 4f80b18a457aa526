/// Something that happened in a client's cache: what a devtool, a logger or a test subscribes to through
/// `QueryClient.events`.
public enum QueryCacheEvent: Sendable, CustomStringConvertible {
    /// An entry was created for `key`.
    case added(QueryKey)
    /// The data or error of `key` changed.
    case updated(QueryKey)
    /// The entry of `key` was removed (garbage collection, `removeQueries`, `clear()`).
    case removed(QueryKey)
    /// A fetch of `key` started, and why.
    case fetchStarted(QueryKey, reason: FetchReason)
    /// A fetch of `key` ended: `nil` on success, else the error (a cancellation is `QueryError.cancelled`).
    case fetchFinished(QueryKey, error: (any Error)?)
    /// An attempt of the fetch of `key` failed with `error` and another will follow: `failureCount` attempts
    /// have failed so far.
    case fetchRetrying(QueryKey, failureCount: Int, error: any Error)
    /// The fetch of `key` waits for the network (or the focus), before an attempt.
    case fetchPaused(QueryKey)
    /// The fetch of `key` goes on after a pause.
    case fetchContinued(QueryKey)
    /// A read of `key` that fetches only when it must (`fetchQuery`, `prefetchQuery`, `ensureQueryData`, a
    /// query's `value()`) was answered from the cache (`fromCache`: memory, or a valid stored value under
    /// `.useInsteadOfFetching`: a hit), or waits for a fetch it started or joined (a miss).
    case served(QueryKey, fromCache: Bool)
    /// The latest value of `key` was written to the persistent cache (by the client's writer).
    case saved(QueryKey)
    /// Garbage collection removed the entry of `key` (`gcTime` after its last observer left); `removed`
    /// follows.
    case collected(QueryKey)
    /// The entry of `key` was evicted from memory before its `gcTime`, for `reason` (the client's
    /// `MemoryBudget`, or `QueryClient.trim(to:)`); `removed` follows. A persistent cache keeps its value.
    case evicted(QueryKey, reason: EvictionReason)
    /// The entries that may not be evicted (observed, or fetching) cost `used`, over the budget's `limit`: said
    /// once, until the client is back within its limit.
    case overBudget(used: Int, limit: Int)
    /// The data of `key` was read back from the persistent cache (at start-up, or as the fallback of a failed
    /// fetch).
    case restored(QueryKey)
    /// Saving or loading `key` in the persistent cache failed; the in-memory state is unaffected.
    case persistenceFailed(QueryKey, error: any Error)
    /// A mutation call was submitted, changed or removed (the client's mutation cache).
    case mutation(MutationEvent)
    /// Changes made by other clients may have been missed (`source`, a link to them, was lost and is back):
    /// every entry was marked stale and the active ones refetch (`QueryClient.changesMissed(from:)`).
    case changesMissed(from: String)
    /// A host signal the client follows (`QueryClient.follow(_:)`) changed its connectivity or focus, trimmed
    /// it under memory pressure, or failed.
    case hostSignal(HostSignalEvent)

    /// The key the event is about; for a mutation event, the call's `mutationKey` (`"mutation"` when it has
    /// none); for `changesMissed`, `overBudget` and `hostSignal`, the empty key (the whole client).
    public var key: QueryKey {
        switch self {
        case .mutation(let event): event.info.mutationKey ?? "mutation"
        case .changesMissed, .overBudget, .hostSignal: QueryKey(parts: [])
        case .evicted(let key, _): key
        case .added(let key), .updated(let key), .removed(let key), .restored(let key): key
        case .fetchPaused(let key), .fetchContinued(let key), .saved(let key), .collected(let key): key
        case .fetchStarted(let key, _), .fetchFinished(let key, _), .persistenceFailed(let key, _): key
        case .fetchRetrying(let key, _, _), .served(let key, _): key
        }
    }

    /// One line for logs: `fetchStarted users/42 (firstUse)`.
    public var description: String {
        switch self {
        case .added(let key): "added \(key)"
        case .updated(let key): "updated \(key)"
        case .removed(let key): "removed \(key)"
        case .restored(let key): "restored \(key)"
        case .fetchStarted(let key, let reason): "fetchStarted \(key) (\(reason.rawValue))"
        case .fetchFinished(let key, nil): "fetchFinished \(key)"
        case .fetchFinished(let key, let error?): "fetchFinished \(key) failed: \(error)"
        case .persistenceFailed(let key, let error): "persistenceFailed \(key): \(error)"
        case .fetchRetrying(let key, let failureCount, let error):
            "fetchRetrying \(key) after \(failureCount) failed attempt(s): \(error)"
        case .fetchPaused(let key): "fetchPaused \(key)"
        case .fetchContinued(let key): "fetchContinued \(key)"
        case .served(let key, let fromCache): "served \(key) \(fromCache ? "from the cache" : "by a fetch")"
        case .saved(let key): "saved \(key)"
        case .collected(let key): "collected \(key)"
        case .evicted(let key, let reason): "evicted \(key) (\(reason.rawValue))"
        case .overBudget(let used, let limit): "overBudget: \(used) in use, over the limit of \(limit)"
        case .mutation(let event): "\(event)"
        case .changesMissed(let source): "changesMissed from \(source): every entry is stale"
        case .hostSignal(let event): "hostSignal \(event)"
        }
    }
}
