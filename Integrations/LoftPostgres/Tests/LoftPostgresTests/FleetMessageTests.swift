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
        SharedChange(.setData(json: #"{"name":"Ada","note":"two\nlines\nvalue x"}"#), [.exact(["user", 1])]),
        SharedChange(
            .setData(json: nil), [.exact(["user", 2])],
            filter: SharedChange.Filter(.init(isStale: false, fetchStatus: .paused))),
        SharedChange(.invalidate(.all), []),
    ]

    @Test func everyChangeReadsBackAsSent() throws {
        for change in Self.changes {
            let message = FleetMessage(origin: UUID(), change: change)
            let read = FleetMessage.read(try message.payload())
            #expect(read?.origin == message.origin)
            #expect(read?.change == change, "\(change)")
        }
    }

    @Test func aValueTooLargeTravelsWithoutItselfAndAKeyTooLargeIsAnError() throws {
        let large = SharedChange(
            .setData(json: "\"" + String(repeating: "v", count: 8_000) + "\""), [.exact(["user", 1])])
        let read = FleetMessage.read(try FleetMessage(origin: UUID(), change: large).payload())
        #expect(read?.change == SharedChange(.setData(json: nil), [.exact(["user", 1])]))
        let huge = FleetMessage(
            origin: UUID(),
            change: SharedChange(.remove, [.exact(QueryKey(parts: [.string(String(repeating: "k", count: 9_000))]))]))
        #expect(throws: CacheError.self) { try huge.payload() }
    }

    /// A mutation-based fuzz run, the same on every run: whatever a notification holds, reading it gives nil
    /// or a change that travels as itself.
    @Test func anyPayloadIsAChangeOrNothing() throws {
        var random = SeededRandom(seed: 0x9A710AD)
        let seeds = try Self.changes.map { try FleetMessage(origin: UUID(), change: $0).payload() }
        let pieces = Array("\n []{}\",:0123456789-abcdefilnoprstuvxy").map(String.init) + ["value ", "exact ", "🚀"]
        var read = 0
        for _ in 0..<20_000 {
            let text = random.mutation(of: random.pick(seeds), with: pieces)
            guard let message = FleetMessage.read(text) else { continue }
            read += 1
            #expect(FleetMessage.read(try message.payload())?.change == message.change, "\(text)")
        }
        #expect(read > 1_000)
    }

    @Test func rowsUnderAPrefix() throws {
        #expect(try FleetMessage.rows(under: ["user", 4]) == (#"["user",4]"#, #"["user",4,%"#))
        #expect(try FleetMessage.rows(under: []) == (nil, "%"))
        #expect(try FleetMessage.rows(under: ["a_b%c\\d", ["page": 1]]) == (nil, #"["a\_b\%c\\\\d",%"#))
    }
}
