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

    /// The key the event is about; for a mutation event, the call's `mutationKey` (`"mutation"` when it has
    /// none); for `changesMissed`, the empty key (every entry).
    public var key: QueryKey {
        switch self {
        case .mutation(let event): event.info.mutationKey ?? "mutation"
        case .changesMissed: QueryKey(parts: [])
        case .added(let key), .updated(let key), .removed(let key), .restored(let key): key
        case .fetchStarted(let key, _), .fetchFinished(let key, _), .persistenceFailed(let key, _): key
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
        case .mutation(let event): "\(event)"
        case .changesMissed(let source): "changesMissed from \(source): every entry is stale"
        }
    }
}
