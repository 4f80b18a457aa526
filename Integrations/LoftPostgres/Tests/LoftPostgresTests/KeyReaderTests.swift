import Foundation
import Loft
import LoftTesting
import Testing

@testable import LoftPostgres

/// The key reader of notifications reads every key as `JSONDecoder` does: by itself for the keys a fleet
/// sends (so that a change costs no decoder), by handing over anything else.
@Suite struct KeyReaderTests {
    static let keys: [QueryKey] = [
        [],
        ["user", 42],
        [.int(.min), .int(.max), true, false, 0, -1],
        [#"quote " backslash \ slash / "#, "\u{0}\u{1F}\n\r\t\u{8}\u{C}", "ü 日本 🚀 e\u{301}", ""],
        [
            .double(1.5), .double(-0.0), .double(1e300), .double(.greatestFiniteMagnitude), .double(.nan),
            .double(.infinity),
        ],
        [.double(-.infinity), .double(0.1), .uuid(UUID())],
        [["page": 2, "status": "open", "nested": ["deeper": ["x": [:]]]], [:]],
        [["double": 1], ["uuid": "not one"], ["dictionary": ["a": 1]], ["double": 1.5, "other": true]],
    ]

    @Test func theKeysAFleetSendsAreReadWithoutTheDecoder() throws {
        for key in Self.keys {
            for text in [
                try PostgresQueryCache.text(of: key), String(decoding: try JSONEncoder().encode(key), as: UTF8.self),
            ] {
                #expect(KeyReader.parts(of: text).map { QueryKey(parts: $0) } == key, "\(text)")
            }
        }
        var random = SeededRandom(seed: 7)
        for _ in 0..<3_000 {
            let key = QueryKey(parts: (0..<random.below(5)).map { _ in Self.part(&random, depth: 0) })
            let text = try PostgresQueryCache.text(of: key)
            #expect(KeyReader.parts(of: text).map { QueryKey(parts: $0) } == key, "\(text)")
        }
    }

    @Test(
        "white space, escapes and surrogate pairs are JSON's",
        arguments: [
            (#" [ "a" , 1 , { "b" : true } ] "#, QueryKey("a", 1, ["b": true])),
            (#"["\u00fc\ud83d\ude80\/"]"#, QueryKey("ü🚀/")),
            (
                #"[{"double":"nan"},{"double":2},{"double":-1.25e2}]"#,
                QueryKey(.double(.nan), .double(2), .double(-125))
            ),
            (#"[{"dictionary":{"double":3}}]"#, QueryKey(["double": 3])),
            (
                #"[{"double":"abc"},{"double":1,"x":2},{"uuid":5}]"#,
                QueryKey(["double": "abc"], ["double": 1, "x": 2], ["uuid": 5])
            ),
        ])
    func readsJSON(text: String, key: QueryKey) {
        #expect(KeyReader.parts(of: text).map { QueryKey(parts: $0) } == key)
    }

    @Test(
        "what the reader is not sure of goes to the decoder",
        arguments: [
            #"["a",1.0]"#, #"["a",1e2]"#, #"[{"double":5e-324}]"#, #"[{"double":5e-400}]"#,
            #"[{"a":1,"a":2}]"#, #"[99999999999999999999]"#, #"[{"double":1e999}]"#, #"["\ud800"]"#, #"[01]"#,
            "[\"raw\ncontrol\"]", #"["a",]"#, #"["a"] x"#, #"[nul]"#, "", "[", #"{"a":1}"#,
        ])
    func handsOver(text: String) {
        #expect(KeyReader.parts(of: text) == nil)
        #expect(KeyReader.key(from: text) == (try? JSONDecoder().decode(QueryKey.self, from: Data(text.utf8))))
    }

    /// A mutation-based fuzz run, the same on every run: whatever a notification holds, the reader answers as
    /// the decoder does, and never crashes.
    @Test func anyTextIsReadAsTheDecoderReadsIt() throws {
        var random = SeededRandom(seed: 0xF1EE7)
        let seeds = try Self.keys.map { try PostgresQueryCache.text(of: $0) }
        let pieces = Array(#"[]{}",:\/u0123456789.eE+-tfnalsrueduoblicy \#n"#).map(String.init) + ["\\ud83d", "🚀"]
        var fast = 0
        for _ in 0..<30_000 {
            let mutated = random.mutation(of: random.pick(seeds), with: pieces)
            let decoded = try? JSONDecoder().decode(QueryKey.self, from: Data(mutated.utf8))
            if let parts = KeyReader.parts(of: mutated) {
                fast += 1
                #expect(QueryKey(parts: parts) == decoded, "\(mutated)")
            }
            #expect(KeyReader.key(from: mutated) == decoded, "\(mutated)")
        }
        #expect(fast > 1_000)
    }

    static func part(_ random: inout SeededRandom, depth: Int) -> QueryKey.Part {
        switch random.below(depth < 2 ? 6 : 5) {
        case 0: .string(String((0..<random.below(8)).map { _ in random.pick(Array("aZ \"\\/\n\u{1}ü🚀:,{}[]")) }))
        case 1: .int(Int(truncatingIfNeeded: random.next()))
        case 2: .bool(random.next() % 2 == 0)
        case 3:
            // Subnormal doubles are the decoder's to read (the reader hands them over).
            .double(random.pick([Double(bitPattern: random.next()), 0.5, .nan, -.infinity]).nonSubnormal)
        case 4: .uuid(UUID())
        default:
            .dictionary(
                Dictionary(
                    (0..<random.below(4)).map { _ in
                        (random.pick(["a", "double", "uuid", "b"]), part(&random, depth: depth + 1))
                    }
                ) { first, _ in first })
        }
    }
}

extension Double {
    fileprivate var nonSubnormal: Double { isSubnormal ? 0.5 : self }
}
