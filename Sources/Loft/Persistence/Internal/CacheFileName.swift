#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The file name of a key in `JSONFileQueryCache`'s directory.
///
/// The key's canonical JSON (its parts, dictionary parts sorted) is escaped to lowercase letters, digits and
/// `-`; every other byte becomes `_` and two hex digits. The escaping is one-to-one and leaves no `/`, `.`
/// or NUL, so a name never leaves the directory, and it survives case-insensitive file systems. A name that
/// would be too long for a file system becomes `h_` + a 128-bit hash of the key + a probe number; the record
/// inside names its key, so two long keys with the same hash take different probe numbers and never share a
/// file.
package enum CacheFileName {
    /// Names longer than this are hashed (file systems allow 255 bytes).
    package static let maximumEscapedLength = 200
    /// Hashed names try this many probe numbers.
    package static let probeLimit = 8
    package static let suffix = ".json"
    package static let temporaryMarker = ".tmp-"

    /// The key as canonical JSON: the same key always gives the same bytes.
    package static func canonical(_ key: QueryKey) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding parts cannot fail: they are strings, numbers, booleans and dictionaries of those.
        return Array((try? encoder.encode(key)) ?? Data(key.description.utf8))
    }

    /// The direct name of `key`, or nil when it would be too long and the key must be hashed.
    package static func direct(_ key: QueryKey) -> String? {
        let bytes = canonical(key)
        var name = "k_"
        name.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                name.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                name += "_" + hex(UInt64(byte), digits: 2)
            }
            if name.utf8.count > maximumEscapedLength { return nil }
        }
        return name + suffix
    }

    /// The key a direct name was made of (`direct(_:)` undone), or nil for a hashed name or one this escaping
    /// never makes.
    package static func key(ofDirect name: String) -> QueryKey? {
        guard name.hasPrefix("k_"), name.hasSuffix(suffix) else { return nil }
        let escaped = Array(name.utf8.dropFirst(2).dropLast(suffix.utf8.count))
        var bytes: [UInt8] = []
        var index = 0
        while index < escaped.count {
            if escaped[index] == UInt8(ascii: "_") {
                guard index + 2 < escaped.count,
                    let byte = UInt8(String(decoding: escaped[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(escaped[index])
                index += 1
            }
        }
        return try? JSONDecoder().decode(QueryKey.self, from: Data(bytes))
    }

    /// The hashed name of `key` with probe number `probe`.
    package static func hashed(_ key: QueryKey, probe: Int) -> String {
        let bytes = canonical(key)
        let high = fnv1a(bytes, basis: 0xcbf2_9ce4_8422_2325)
        let low = fnv1a(bytes, basis: 0x6c62_272e_07bb_0142)
        return "h_" + hex(high, digits: 16) + hex(low, digits: 16) + "_\(probe)" + suffix
    }

    /// Whether `name` is a temporary file of the cache: a record's name, the marker, then the writer's process
    /// id and counter (`k_….json.tmp-123-4`). Nothing else is ever deleted as one.
    package static func isTemporary(_ name: String) -> Bool {
        guard let marker = name.firstRange(of: temporaryMarker) else { return false }
        let record = String(name[..<marker.lowerBound])
        let numbers = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        return isRecord(record) && numbers.count == 2
            && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
    }

    /// Whether `name` is one of the cache's record names (anything else in the directory is left alone).
    package static func isRecord(_ name: String) -> Bool {
        (name.hasPrefix("k_") || name.hasPrefix("h_")) && name.hasSuffix(suffix) && !name.contains(temporaryMarker)
    }

    private static func fnv1a(_ bytes: [UInt8], basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
