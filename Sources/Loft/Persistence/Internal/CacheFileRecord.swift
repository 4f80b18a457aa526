/// What one file of `JSONFileQueryCache` holds: a JSON object naming the format, the key, the save time, the
/// expiry, the Swift type that saved the value, and the value.
///
/// ```json
/// {"format":"loft-cache/1","key":["user",42],"savedAt":1767225600000000000,"type":"User","value":{…}}
/// ```
package struct CacheFileRecord<Value> {
    package static var format: String { "loft-cache/1" }

    /// Whether `format` is this cache's own format in a later version (`loft-cache/2` and on): a record that a
    /// newer version wrote, which this one neither reads nor replaces.
    package static func isNewer(_ format: String) -> Bool {
        guard format.hasPrefix("loft-cache/"), let version = Int(format.dropFirst("loft-cache/".count)) else {
            return false
        }
        return version > 1
    }

    /// Why a record of `format` is not read.
    package static func unreadableReason(_ format: String) -> String {
        isNewer(format)
            ? "written by a newer version (format \(format)); it is left as it is" : "unknown format \(format)"
    }

    package var format: String
    package var key: QueryKey
    /// Nanoseconds since the Unix epoch on the saver's clock.
    package var savedAt: SchedulerInstant
    package var expiresAt: SchedulerInstant?
    package var type: String
    package var value: Value
}

extension CacheFileRecord: Encodable where Value: Encodable {}
extension CacheFileRecord: Decodable where Value: Decodable {}

/// A record without its value: what is read to tell a foreign file from a value that no longer decodes.
package struct CacheFileHeader: Decodable {
    package var format: String
    package var key: QueryKey
    package var savedAt: SchedulerInstant
    package var expiresAt: SchedulerInstant?
    package var type: String
}

/// A record as read back for a key: its key is checked against the one asked for (a file copied over another's
/// name must not answer for it).
package struct CacheFileBody<Value: Decodable>: Decodable {
    package var format: String
    package var key: QueryKey
    package var savedAt: SchedulerInstant
    package var expiresAt: SchedulerInstant?
    package var value: Value
}
