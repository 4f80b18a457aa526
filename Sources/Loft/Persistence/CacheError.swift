/// What can go wrong in a persistent cache (`QueryCacheType`). A client reports these as
/// `QueryCacheEvent.persistenceFailed` and carries on from memory or the network: nothing else is lost.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stored record of `key` is not a record of this cache: empty, truncated, not JSON, or another
    /// program's file. It is skipped (and replaced by the next save); the other entries are unaffected.
    case corruptEntry(key: QueryKey, path: String, reason: String)
    /// The stored value of `key` was saved as a `storedType` and no longer decodes as a `expectedType` (the type
    /// changed since it was saved). It is skipped, and the query fetches.
    case undecodableValue(key: QueryKey, storedType: String, expectedType: String, reason: String)
    /// The value of `key` could not be encoded (its `encode(to:)` threw).
    case encodingFailed(key: QueryKey, type: String, reason: String)
    /// The value's type is not `Codable`, so a persistent cache cannot hold it.
    case notCodable(key: QueryKey, type: String)
    /// Writing `path` failed: a read-only directory, no space left, no permission. The previous record (if
    /// any) is intact.
    case writeFailed(path: String, reason: String)
    /// Reading `path` failed for another reason than its absence.
    case readFailed(path: String, reason: String)
    /// The encoded value of `key` (`bytes`) is larger than the whole byte quota of the cache.
    case exceedsQuota(key: QueryKey, bytes: Int, quota: Int)
    /// The global default cache was already configured: it can be set once, at start-up.
    case alreadyConfigured
    /// The store behind the cache cannot be reached (a database server down or restarting, a connection lost):
    /// the call read or wrote nothing, and the next call tries again.
    case unavailable(store: String, reason: String)
    /// The store did not answer `operation` within `seconds`. A write may or may not have been applied; the
    /// connection it was sent on is dropped, and the next call uses a new one.
    case timedOut(store: String, operation: String, seconds: Double)

    /// A one-line reason for `error`, as the cases' `reason` hold it: a `DecodingError`'s coding path and
    /// description (its own description is a paragraph), any other error's description. For providers that
    /// report a value that no longer decodes.
    public static func reason(for error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The database file at `path` is not a database this cache can read: garbage, truncated or damaged.
    /// Nothing was read from it or written to it; moving it aside to start anew is the caller's choice (a
    /// database provider may offer it as an option).
    case corruptStore(path: String, reason: String)
    /// The store at `path` cannot be used by this version: its schema is newer than this version knows, or
    /// something that is not a database file (a link, a FIFO, a directory) is in its place. It is left as it is.
    case unsupportedStore(path: String, reason: String)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .corruptEntry(let key, let path, let reason):
            "The stored record of \(key) at \(path) is not readable (\(reason)); it was skipped."
        case .undecodableValue(let key, let storedType, let expectedType, let reason):
            "The stored value of \(key) was saved as \(storedType) and no longer decodes as \(expectedType) "
                + "(\(reason)); it was skipped and the query fetches."
        case .encodingFailed(let key, let type, let reason):
            "The value of \(key) (\(type)) could not be encoded: \(reason)."
        case .notCodable(let key, let type):
            "The value of \(key) is a \(type), which is not Codable: a persistent cache cannot hold it."
        case .writeFailed(let path, let reason):
            "Writing \(path) failed: \(reason). The previous record is intact; memory is up to date."
        case .readFailed(let path, let reason):
            "Reading \(path) failed: \(reason)."
        case .exceedsQuota(let key, let bytes, let quota):
            "The value of \(key) takes \(bytes) bytes, more than the whole quota of \(quota) bytes; it was not saved."
        case .alreadyConfigured:
            "The default query cache was already configured; configure it once, at start-up."
        case .unavailable(let store, let reason):
            "The cache store \(store) cannot be reached (\(reason)); memory is up to date and the next call tries again."
        case .corruptStore(let path, let reason):
            "The database \(path) is damaged (\(reason)); nothing was read from it. Move it aside or remove it to start anew."
        case .unsupportedStore(let path, let reason):
            "The store at \(path) cannot be used by this version (\(reason)); it was left as it is."
        case .timedOut(let store, let operation, let seconds):
            "The cache store \(store) did not answer \(operation) within \(seconds) s; the next call uses a new connection."
        }
    }
}
