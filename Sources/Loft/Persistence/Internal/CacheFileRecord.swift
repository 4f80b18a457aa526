/// What one file of `JSONFileQueryCache` holds: a JSON object naming the format, the key, the save time, the
/// expiry, the Swift type that saved the value, and the value.
///
/// ```json
/// {"format":"loft-cache/1","key":["user",42],"savedAt":1767225600000000000,"type":"User","value":{…}}
/// ```
package struct CacheFileRecord<Value> {
    package static var format: String { "loft-cache/1" }

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
