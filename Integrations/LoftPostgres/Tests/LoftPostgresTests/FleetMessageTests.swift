import Foundation
import Loft
import LoftTesting
import Testing

@testable import LoftPostgres

/// A notification's payload carries every change whole, reads back as the change sent, and never makes a
/// receiver crash whatever it holds.
@Suite struct FleetMessageTests {
    static let changes: [SharedChange] = [
        SharedChange(.invalidate(.active), [.prefix(["user"])]),
        SharedChange(.invalidate(.none), [.exact(["user", 42]), .prefix([]), .tag("todos"), .exactTag(["todo", 7])]),
        SharedChange(
            .remove, [.exact(["page", ["sort": "name", "page": 2]])],
            filter: SharedChange.Filter(.init(type: .inactive, isStale: true, fetchStatus: .fetching))),
        SharedChange(
            .setData(json: nil), [.exact(["user", 2])],
            filter: SharedChange.Filter(.init(isStale: false, fetchStatus: .paused))),
        SharedChange(.invalidate(.all), []),
    ]

    /// Rows' values: with the value, and too large to travel.
    static let rows: [SharedChange] = [
        SharedChange(.setData(json: #"{"name":"Ada","note":"two\nlines\nvalue x"}"#), [.exact(["user", 1])]),
        SharedChange(.setData(json: nil), [.exact(["user", 3])]),
    ]

    static var messages: [FleetMessage] {
        changes.map { FleetMessage(origin: UUID(), change: $0) }
            + rows.map { FleetMessage(origin: UUID(), change: $0, isRowWrite: true) }
    }

    @Test func everyChangeReadsBackAsSentWithItsVersion() throws {
        for (index, message) in Self.messages.enumerated() {
            let version = Int64(index) * 1_000_003
            let read = FleetMessage.read(try message.payload(version: version))
            #expect(read?.origin == message.origin)
            #expect(read?.change == message.change, "\(message.change)")
            #expect(read?.isRowWrite == message.isRowWrite)
            #expect(read?.version == version)
        }
    }

    @Test func aRowsValueTooLargeTravelsWithoutItselfAndAKeyTooLargeIsAnError() throws {
        let large = SharedChange(
            .setData(json: "\"" + String(repeating: "v", count: 8_000) + "\""), [.exact(["user", 1])])
        let payload = try FleetMessage(origin: UUID(), change: large, isRowWrite: true).payload(version: .max)
        #expect(payload.utf8.count <= 8_000)
        let read = FleetMessage.read(payload)
        #expect(read?.change == SharedChange(.setData(json: nil), [.exact(["user", 1])]))
        #expect(read?.isRowWrite == true)
        let huge = FleetMessage(
            origin: UUID(),
            change: SharedChange(.remove, [.exact(QueryKey(parts: [.string(String(repeating: "k", count: 9_000))]))]))
        #expect(throws: CacheError.self) { try huge.payload(version: 1) }
    }

    @Test func aRowsValueNamesOneExactKey() {
        let origin = UUID().uuidString
        #expect(FleetMessage.read("loft-change 2 \(origin) 4\nsaved\nfilter all any any\nprefix [\"user\"]") == nil)
        #expect(FleetMessage.read("loft-change 2 \(origin) 4\nsaved\nfilter all any any") == nil)
        #expect(FleetMessage.read("loft-change 2 \(origin) 4\nsaved\nfilter all any any\nexact [\"user\"]") != nil)
    }

    /// A mutation-based fuzz run, the same on every run: whatever a notification holds, reading it gives nil
    /// or a change that travels as itself.
    @Test func anyPayloadIsAChangeOrNothing() throws {
        var random = SeededRandom(seed: 0x9A710AD)
        let seeds = try Self.messages.map { try $0.payload(version: 77) }
        let pieces = Array("\n []{}\",:0123456789-abcdefilnoprstuvxy").map(String.init) + ["value ", "exact ", "🚀"]
        var read = 0
        for _ in 0..<20_000 {
            let text = random.mutation(of: random.pick(seeds), with: pieces)
            guard let message = FleetMessage.read(text) else { continue }
            read += 1
            let again = FleetMessage.read(try message.payload(version: message.version))
            #expect(again?.change == message.change, "\(text)")
            #expect(again?.version == message.version)
        }
        #expect(read > 1_000)
    }

    @Test func rowsUnderAPrefix() throws {
        #expect(try FleetMessage.rows(under: ["user", 4]) == (#"["user",4]"#, #"["user",4,%"#))
        #expect(try FleetMessage.rows(under: []) == (nil, "%"))
        #expect(try FleetMessage.rows(under: ["a_b%c\\d", ["page": 1]]) == (nil, #"["a\_b\%c\\\\d",%"#))
    }
}
