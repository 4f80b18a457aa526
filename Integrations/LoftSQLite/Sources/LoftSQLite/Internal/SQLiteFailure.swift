import GRDB
import Loft

/// What an SQLite failure means to a caller, as a `CacheError`.
struct SQLiteFailure {
    /// What was being done.
    enum Operation: String {
        case open = "opening the database"
        case read = "a read"
        case write = "a write"
    }

    let path: String
    let busyTimeout: Double

    /// `error` (a GRDB `DatabaseError`, or anything thrown while reading or writing) as a `CacheError`.
    func cacheError(_ error: any Error, during operation: Operation) -> CacheError {
        if let cacheError = error as? CacheError { return cacheError }
        guard let database = error as? DatabaseError else {
            return operation == .write
                ? .writeFailed(path: path, reason: "\(error)") : .readFailed(path: path, reason: "\(error)")
        }
        let reason = database.message ?? "\(database.resultCode)"
        switch database.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            // Another connection (of this process or another) held the lock for longer than the busy timeout.
            return .timedOut(store: path, operation: operation.rawValue, seconds: busyTimeout)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return .corruptStore(path: path, reason: reason)
        case .SQLITE_FULL:
            return .writeFailed(path: path, reason: "the disk is full (\(reason))")
        default:
            return operation == .read
                ? .readFailed(path: path, reason: reason) : .writeFailed(path: path, reason: reason)
        }
    }
}
