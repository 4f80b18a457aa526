/// The errors Loft itself raises (a fetcher's own errors pass through unchanged).
public enum QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The fetch was cancelled (by `cancel()`, `cancelQueries` or a newer explicit refetch) before it produced
    /// a value; the state from before the fetch was restored.
    case cancelled(key: QueryKey)
    /// The cached value of `key` is a `actual`, but it was read as a `expected`.
    case typeMismatch(key: QueryKey, expected: String, actual: String)
    /// The query has no fetcher for this key (a consumer, or a key nobody registered a fetcher for).
    case noFetcher(key: QueryKey)
    /// The query is disabled (`enabled: false`) and has no data to return.
    case disabled(key: QueryKey)
    /// A publisher fetcher finished without sending a value.
    case emptyResponse(key: QueryKey)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .cancelled(let key):
            "The fetch of \(key) was cancelled before it produced a value."
        case .typeMismatch(let key, let expected, let actual):
            "The cached value of \(key) is a \(actual), but it was read as a \(expected): use one type per key."
        case .noFetcher(let key):
            "Nothing knows how to fetch \(key): create a Query with a fetcher for it, or pass one to fetchQuery."
        case .disabled(let key):
            "The query of \(key) is disabled and has no data; enable it or call refetch explicitly."
        case .emptyResponse(let key):
            "The fetcher of \(key) finished without a value."
        }
    }
}

/// `value` as a `T` (hydrated JSON is decoded), or `QueryError.typeMismatch` naming both types: the one way
/// Loft reads a type-erased cached value.
///
/// Inlinable, so that the common case (the value is a `T`) is cast with the caller's type: a read looks no
/// generic metadata up.
@inlinable
package func cast<T>(_ value: any Sendable, to type: T.Type, key: QueryKey) throws -> T {
    if let typed = value as? T { return typed }
    return try castHydratedOrFail(value, to: T.self, key: key)
}

/// `cast`'s rare cases: hydrated JSON decoded as a `T`, or the mismatch.
@usableFromInline
func castHydratedOrFail<T>(_ value: any Sendable, to type: T.Type, key: QueryKey) throws -> T {
    if let hydrated = value as? HydratedValue {
        // Hydrated data is JSON until a typed reader names its type.
        guard let typed = hydrated.decode(as: T.self) else {
            throw QueryError.typeMismatch(key: key, expected: "\(T.self)", actual: "JSON of \(hydrated.type)")
        }
        return typed
    }
    throw QueryError.typeMismatch(key: key, expected: "\(T.self)", actual: "\(Swift.type(of: value))")
}
