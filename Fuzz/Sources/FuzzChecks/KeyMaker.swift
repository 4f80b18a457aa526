import Foundation
import Loft

/// Builds a query key from arbitrary bytes, so the fuzzer reaches every part kind and nesting without having
/// to find valid JSON: each part starts with a byte that chooses its kind; strings take their length from the
/// next byte and may hold any bytes (invalid UTF-8 is repaired, as `String(decoding:)` does).
struct KeyMaker {
    private var bytes: Data.SubSequence

    init(_ bytes: Data) {
        self.bytes = bytes[...]
    }

    mutating func key() -> QueryKey {
        let count = Int(next() % 9)
        return QueryKey(parts: (0..<count).map { _ in part(depth: 0) })
    }

    private mutating func part(depth: Int) -> QueryKey.Part {
        switch next() % (depth < 3 ? 6 : 5) {
        case 0: .string(string())
        case 1: .int(Int(truncatingIfNeeded: word()))
        case 2: .bool(next() & 1 == 1)
        case 3: .double(Double(bitPattern: word()))
        case 4: .uuid(uuid())
        default:
            .dictionary(
                Dictionary((0..<Int(next() % 4)).map { _ in (string(), part(depth: depth + 1)) }) { first, _ in first })
        }
    }

    private mutating func string() -> String {
        let length = Int(next() % 48)
        return String(decoding: (0..<length).map { _ in next() }, as: UTF8.self)
    }

    private mutating func word() -> UInt64 {
        (0..<8).reduce(0) { word, _ in word << 8 | UInt64(next()) }
    }

    private mutating func uuid() -> UUID {
        UUID(
            uuid: (
                next(), next(), next(), next(), next(), next(), next(), next(), next(), next(), next(), next(),
                next(), next(), next(), next()
            ))
    }

    /// The next byte; zero once the input is used up.
    private mutating func next() -> UInt8 {
        bytes.popFirst() ?? 0
    }
}
