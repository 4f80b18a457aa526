import Foundation
import GRDB
import Loft

/// A row as read, before its columns are checked: a hostile or damaged row (a value of the wrong storage class,
/// a value over the size limit) is a `corruptEntry`, never a crash.
struct StoredRow: Sendable {
    let value: DatabaseValue
    let type: DatabaseValue
    let savedAt: DatabaseValue
    let length: DatabaseValue

    init(_ row: Row) {
        value = row[0]
        type = row[1]
        savedAt = row[2]
        length = row[3]
    }

    /// The value's JSON, its stored type's name and its save time.
    ///
    /// - Throws: `CacheError.corruptEntry` when a column is not what this cache writes.
    func checked(key: QueryKey, path: String) throws(CacheError) -> (Data, String, Int64) {
        if value.isNull, let length = Int.fromDatabaseValue(length), length > SQLiteQueryCache.maximumValueBytes {
            throw .corruptEntry(
                key: key, path: path,
                reason: "its value takes \(length) bytes, more than the \(SQLiteQueryCache.maximumValueBytes) read back"
            )
        }
        guard case .blob(let data) = value.storage, let type = String.fromDatabaseValue(type),
            case .int64(let savedAt) = savedAt.storage
        else {
            throw .corruptEntry(key: key, path: path, reason: "its row does not hold a value, a type and a save time")
        }
        return (data, type, savedAt)
    }
}
