import Foundation
import Loft
import LoftTesting
import Testing

@testable import LoftSQLite

/// A key's text is its canonical JSON: written directly for the common keys, and always the text JSONEncoder
/// writes, so that a key has one row whichever way its text was made.
@Suite struct SQLiteKeyTextTests {
    @Test("the direct text of 10,000 generated keys is JSONEncoder's, and reads back as the key")
    func directTextIsTheEncodersText() {
        var random = SeededRandom(seed: 7)
        let pieces = ["user", "todos", "a b", "ü", "quote\"", "back\\slash", "tab\t", "/", "", "~", "{", "]", ","]
        var direct = 0
        for _ in 0..<10_000 {
            let parts: [QueryKey.Part] = (0..<(1 + Int(random.next() % 4))).map { _ in
                switch random.next() % 5 {
                case 0: .int(Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 64))
                case 1: .bool(random.next() % 2 == 0)
                case 2: .double(Double(Int(random.next() % 1_000)) / 8)
                default: .string(pieces[Int(random.next() % UInt64(pieces.count))] + "\(random.next() % 100)")
                }
            }
            let key = QueryKey(parts: parts)
            if let plain = SQLiteKeyText.plainText(of: key) {
                direct += 1
                #expect(plain == SQLiteKeyText.encodedText(of: key), "\(key)")
            }
            #expect(SQLiteKeyText.key(from: SQLiteKeyText.text(of: key)) == key)
        }
        #expect(direct > 1_000)  // the direct path was exercised, not only the encoder's
    }

    @Test("a prefix's range holds its keys' texts and no other")
    func prefixRange() throws {
        let range = try #require(SQLiteKeyText.range(under: ["todos", 1]))
        let below = SQLiteKeyText.text(of: ["todos", 1, "comments"])
        let other = SQLiteKeyText.text(of: ["todos", 10])
        #expect(range.exact == SQLiteKeyText.text(of: ["todos", 1]))
        #expect(below >= range.start && below < range.end)
        #expect(!(other >= range.start && other < range.end))
    }
}
