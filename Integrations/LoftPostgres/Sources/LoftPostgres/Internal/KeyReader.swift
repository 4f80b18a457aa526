import Foundation
import Loft

/// Reads a `QueryKey` from the JSON its `Codable` conformance writes, without Foundation's decoder (which costs
/// tens of microseconds per key on Linux, and a fleet link reads a key per instance per change).
///
/// **Behavior**
/// - It reads what it can be sure of: arrays of strings, integers, booleans, dictionaries and the tagged doubles,
///   UUIDs and dictionaries (`{"double": 1.5}`, `{"uuid": "…"}`, `{"dictionary": {…}}`).
/// - Anything else (a number with a fraction outside a double's tag, a tag whose value does not fit it, a
///   duplicate name, bad JSON) is handed to `JSONDecoder`, so the two never read one text differently.
/// - Never crashes, whatever the text: nil is the answer for text that holds no key.
struct KeyReader {
    private let bytes: [UInt8]
    private var index = 0

    private init(_ text: some StringProtocol) {
        bytes = Array(text.utf8)
    }

    /// The key `text` holds, or nil when it holds none.
    static func key(from text: some StringProtocol) -> QueryKey? {
        if let parts = parts(of: text) { return QueryKey(parts: parts) }
        return try? JSONDecoder().decode(QueryKey.self, from: Data(text.utf8))
    }

    /// The parts of the key `text` holds when this reader is sure of them, without `JSONDecoder`; nil otherwise.
    static func parts(of text: some StringProtocol) -> [QueryKey.Part]? {
        var reader = KeyReader(text)
        return reader.wholeKey()
    }

    /// The key's parts when the whole text is a key this reader is sure of; nil otherwise.
    private mutating func wholeKey() -> [QueryKey.Part]? {
        guard take(ascii: "["), let parts = elements() else { return nil }
        skipSpace()
        return index == bytes.count ? parts : nil
    }

    // MARK: - Values

    /// The parts of an array whose `[` was taken, up to and including its `]`.
    private mutating func elements() -> [QueryKey.Part]? {
        var parts: [QueryKey.Part] = []
        if take(ascii: "]") { return parts }
        while true {
            guard let part = part() else { return nil }
            parts.append(part)
            if take(ascii: "]") { return parts }
            guard take(ascii: ",") else { return nil }
        }
    }

    private mutating func part() -> QueryKey.Part? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string().map(QueryKey.Part.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "{"):
            index += 1
            return object()
        default:
            guard let number = number(), !number.hasFraction, let value = Int(number.text) else { return nil }
            return .int(value)
        }
    }

    /// An object whose `{` was taken: a tagged part when its one name is a tag's and its value fits the tag,
    /// else a dictionary (as the decoder reads it: a tag's name beside other names, or with a value that does
    /// not fit, is a dictionary's name like any other).
    private mutating func object() -> QueryKey.Part? {
        if take(ascii: "}") { return .dictionary([:]) }
        skipSpace()
        guard let name = string(), take(ascii: ":") else { return nil }
        let value = index
        if let tagged = tagged(name), take(ascii: "}") { return tagged }
        index = value
        return part().flatMap { pairs(startingWith: (name, $0)) }.map(QueryKey.Part.dictionary)
    }

    /// The part a tag named `name` holds, when it is a tag and its value fits.
    private mutating func tagged(_ name: String) -> QueryKey.Part? {
        switch name {
        case "double": return double()
        case "uuid":
            skipSpace()
            return string().flatMap(UUID.init(uuidString:)).map(QueryKey.Part.uuid)
        case "dictionary":
            guard take(ascii: "{") else { return nil }
            return pairs(startingWith: nil).map(QueryKey.Part.dictionary)
        default: return nil
        }
    }

    /// The pairs of an object up to and including its `}`, after `first` when it was read already.
    private mutating func pairs(startingWith first: (String, QueryKey.Part)?) -> [String: QueryKey.Part]? {
        var pairs: [String: QueryKey.Part] = [:]
        if let first {
            pairs[first.0] = first.1
        } else if take(ascii: "}") {
            return pairs
        } else if !readPair(into: &pairs) {
            return nil
        }
        while true {
            if take(ascii: "}") { return pairs }
            guard take(ascii: ","), readPair(into: &pairs) else { return nil }
        }
    }

    private mutating func readPair(into pairs: inout [String: QueryKey.Part]) -> Bool {
        skipSpace()
        guard let name = string(), pairs[name] == nil, take(ascii: ":"), let part = part() else { return false }
        pairs[name] = part
        return true
    }

    /// A double tag's value: a finite number, or the string a non-finite double is written as.
    private mutating func double() -> QueryKey.Part? {
        skipSpace()
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            switch string() {
            case "nan": return .double(.nan)
            case "+inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            default: return nil
            }
        }
        // A number that does not fit a double whole (too large, or so small it rounds) is the decoder's to judge.
        guard let number = number(), let value = Double(number.text),
            value.isNormal || (value == 0 && !number.text.contains(where: { ("1"..."9").contains($0) }))
        else { return nil }
        return .double(value)
    }

    // MARK: - Tokens

    /// A JSON number's text, and whether it has a fraction or an exponent; nil when none starts here.
    private mutating func number() -> (text: String, hasFraction: Bool)? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digits(allowingLeadingZero: false) else { return nil }
        var hasFraction = false
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(allowingLeadingZero: true) else { return nil }
            hasFraction = true
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits(allowingLeadingZero: true) else { return nil }
            hasFraction = true
        }
        return (String(decoding: bytes[start..<index], as: UTF8.self), hasFraction)
    }

    /// One or more digits; without a leading zero unless the zero is the only one.
    private mutating func digits(allowingLeadingZero: Bool) -> Bool {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        guard index > start else { return false }
        return allowingLeadingZero || bytes[start] != UInt8(ascii: "0") || index - start == 1
    }

    /// A string, its escapes resolved; nil for a raw control character, a bad escape or a lone surrogate.
    private mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let scalar = escape() else { return nil }
                UTF8.encode(scalar) { text.append($0) }
            case 0..<0x20: return nil
            default: text.append(byte)
            }
        }
        return nil
    }

    /// The character an escape after its `\` stands for.
    private mutating func escape() -> Unicode.Scalar? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return nil }
            guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) }
            guard take(ascii: "\\", skippingSpace: false), take(ascii: "u", skippingSpace: false),
                let low = hexUnit(), (0xDC00..<0xE000).contains(low)
            else { return nil }
            return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
        default: return nil
        }
    }

    /// Four hexadecimal digits.
    private mutating func hexUnit() -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        index += 4
        return unit
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { return false }
        index += count
        return true
    }

    /// Takes `character` (after any white space) when it comes next.
    private mutating func take(ascii character: Unicode.Scalar, skippingSpace: Bool = true) -> Bool {
        if skippingSpace { skipSpace() }
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }
}
