/// What a mutation's `invalidates` names: the entries tagged so, or those under a key prefix, or one key.
///
/// ```swift
/// invalidates: { _, todo in [.tag("todos"), .exact(["todo", todo.id])] }
/// ```
public enum InvalidationTarget: Sendable, Hashable {
    /// The entries with a tag that this one covers (`QueryOptions.tags`; `"todo"` covers `["todo", 7]`).
    case tag(QueryTag)
    /// The entries whose key has this prefix (a dictionary part covers one with more pairs).
    case prefix(QueryKey)
    /// The entry of exactly this key.
    case exact(QueryKey)
}

extension InvalidationTarget {
    /// The same target, as a shared change names it.
    var shared: SharedChange.Target {
        switch self {
        case .tag(let tag): .tag(tag)
        case .prefix(let prefix): .prefix(prefix)
        case .exact(let key): .exact(key)
        }
    }
}

/// After which outcomes of a call its `MutationOptions.invalidates` runs.
public enum InvalidationMoment: Sendable, Hashable {
    /// Only after a successful request (the default): a failed or cancelled call invalidates nothing.
    case succeeded
    /// After every call, successful, failed or cancelled (the closure gets the failure).
    case settled
}
