import Foundation
import Loft

/// A query key decoded from any JSON: decoding fails or gives a key that encodes and decodes back to itself
/// (equal, same hash, same file-name identity), so a key read from a record or a dehydrated state is the one
/// that was written.
public enum QueryKeyCheck {
    /// Decodes `bytes` as a key and checks the round trip when it decodes.
    public static func run(_ bytes: Data) {
        guard let key = try? JSONDecoder().decode(QueryKey.self, from: bytes) else { return }
        check(key)
    }

    /// The round-trip rule for one key (also used on the keys the file-name check makes).
    static func check(_ key: QueryKey) {
        guard key == key else { violated("\(key) is not equal to itself") }
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(key)
        } catch {
            violated("\(key) does not encode: \(error)")
        }
        let decoded: QueryKey
        do {
            decoded = try JSONDecoder().decode(QueryKey.self, from: encoded)
        } catch {
            violated("\(key) encodes as \(String(decoding: encoded, as: UTF8.self)), which does not decode: \(error)")
        }
        guard decoded == key, decoded.hashValue == key.hashValue else {
            violated("\(key) came back as \(decoded) from \(String(decoding: encoded, as: UTF8.self))")
        }
        guard key.hasPrefix(key), key.hasPrefix(QueryKey(parts: [])) else { violated("\(key) is not its own prefix") }
        _ = key.description
    }
}
