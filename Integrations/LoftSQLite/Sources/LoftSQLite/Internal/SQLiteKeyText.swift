import Foundation
import Loft

/// A key as the text the database stores it by: its canonical JSON (its parts as `QueryKey.Part` encodes them,
/// dictionary parts sorted), so that equal keys are one row and the keys under a prefix are one range of the
/// key index.
enum SQLiteKeyText {
    /// The text of `key`.
    static func text(of key: QueryKey) -> String {
        plainText(of: key) ?? encodedText(of: key)
    }

    /// The text JSONEncoder writes (sorted keys, slashes unescaped): the definition of the text.
    static func encodedText(of key: QueryKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding parts cannot fail: they are strings, numbers, booleans and dictionaries of those.
        let data = (try? encoder.encode(key)) ?? Data(key.description.utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The same text, written directly for the common keys (integers, booleans, and strings of printable
    /// ASCII without `"` or `\`, which JSON writes as they are); nil for any other key. A save and a read
    /// make the key's text each time: this keeps JSONEncoder (a microsecond and more) off their paths.
    static func plainText(of key: QueryKey) -> String? {
        var text = "["
        for (index, part) in key.parts.enumerated() {
            if index > 0 { text.append(",") }
            switch part {
            case .int(let value): text.append(String(value))
            case .bool(let value): text.append(value ? "true" : "false")
            case .string(let value):
                guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) else {
                    return nil
                }
                text.append("\"")
                text.append(value)
                text.append("\"")
            default: return nil
            }
        }
        text.append("]")
        return text
    }

    /// The key a stored text names, or nil when the text is not a key's.
    static func key(from text: String) -> QueryKey? {
        try? JSONDecoder().decode(QueryKey.self, from: Data(text.utf8))
    }

    /// The texts of the keys under `prefix` (the prefix itself included): the prefix's own text, and every text
    /// from `start` (inclusive) to `end` (exclusive); nil for the empty prefix, under which every key is.
    ///
    /// The text of a key below `prefix` starts with the prefix's text without its closing `]`, then `,`; the
    /// byte after `,` is `-`, so `end` bounds them in the index's byte order.
    static func range(under prefix: QueryKey) -> (exact: String, start: String, end: String)? {
        guard !prefix.parts.isEmpty else { return nil }
        let exact = text(of: prefix)
        let open = exact.dropLast()
        return (exact, open + ",", open + "-")
    }
}
