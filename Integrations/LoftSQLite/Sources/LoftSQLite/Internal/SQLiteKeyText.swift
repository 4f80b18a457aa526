import Foundation
import Loft

/// A key as the text the database stores it by: its canonical JSON (its parts, dictionary parts sorted, `-0.0`
/// as `0`), so that equal keys are one row and the keys under a prefix are one range of the key index.
enum SQLiteKeyText {
    /// The text of `key`.
    static func text(of key: QueryKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding parts cannot fail: they are strings, numbers, booleans and dictionaries of those.
        let data = (try? encoder.encode(QueryKey(parts: key.parts.map(normalized)))) ?? Data(key.description.utf8)
        return String(decoding: data, as: UTF8.self)
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

    private static func normalized(_ part: QueryKey.Part) -> QueryKey.Part {
        switch part {
        case .double(let value) where value == 0: .double(0)
        case .dictionary(let parts): .dictionary(parts.mapValues(normalized))
        default: part
        }
    }
}
