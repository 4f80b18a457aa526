import LoftTesting
import Testing

@testable import Loft

/// The client's table of entries (`EntryTable`) against a dictionary, through growth, wrap-around and removals
/// that shift entries back.
@Suite struct EntryTableTests {
    @Test(
        "the entry table finds what a dictionary finds, through insertions, replacements and removals",
        arguments: 0..<4)
    func model(seed: UInt64) {
        let client = TestQueryClient().client
        var random = SeededRandom(seed: 0x7AB1E + seed)
        var table = EntryTable()
        var model: [QueryKey: QueryCacheEntry] = [:]
        // Few keys over many steps: the table stays small, so probes wrap around its end and removals shift.
        let keys = (0..<40).map { QueryKey("k", $0 % 7, $0) }
        for step in 0..<3_000 {
            let key = keys[Int.random(in: keys.indices, using: &random)]
            if Bool.random(using: &random) {
                let entry = QueryCacheEntry(key: key, context: client.context, defaults: client.defaults)
                table.insert(entry)
                model[key] = entry
            } else {
                #expect(table.remove(key) === model.removeValue(forKey: key))
            }
            #expect(table.count == model.count)
            // At most three quarters full, and, once past its first 8 slots, more than an eighth full.
            #expect(table.count * 4 <= table.capacity * 3)
            #expect(table.capacity <= 8 || table.count * 8 > table.capacity)
            if step % 50 == 0 {
                for key in keys { #expect(table[key] === model[key]) }
                #expect(Set(table.keys) == Set(model.keys))
                #expect(table.values.count == model.count)
            }
        }
        for key in model.keys { table.remove(key) }
        #expect(table.count == 0 && table.values.isEmpty)
        #expect(keys.allSatisfy { table[$0] == nil })
    }

    @Test("a table emptied after a burst of keys gives its slots back, and finds what it still holds")
    func shrinksAfterBurst() {
        let client = TestQueryClient().client
        var table = EntryTable()
        let keys = (0..<1_000).map { QueryKey("burst", $0) }
        for key in keys { table.insert(QueryCacheEntry(key: key, context: client.context, defaults: client.defaults)) }
        #expect(table.capacity == 2_048)
        for key in keys.dropFirst(10) { table.remove(key) }
        // 10 entries: halved at 256, 128, 64, 32 and 16 entries left, from 2,048 slots to 64.
        #expect(table.capacity == 64)
        #expect(keys.prefix(10).allSatisfy { table[$0]?.key == $0 })
        #expect(keys.dropFirst(10).allSatisfy { table[$0] == nil })
        for key in keys.prefix(10) { table.remove(key) }
        #expect(table.count == 0 && table.capacity == 8)
    }

    @Test("a client trimmed after a burst of keys gives its table's slots back")
    func clientTableShrinksOnTrim() throws {
        let client = TestQueryClient().client
        for id in 0..<1_000 { client.setQueryData(id, for: QueryKey("burst", id)) }
        #expect(client.state.withLock { $0.entries.capacity } == 2_048)
        #expect(client.trim(to: 0) == 1_000)
        #expect(client.state.withLock { $0.entries.count == 0 && $0.entries.capacity == 8 })
        client.setQueryData(1, for: "after")
        #expect(try client.getQueryData("after", as: Int.self) == 1)
    }

    @Test("an empty table finds nothing and removes nothing")
    func empty() {
        var table = EntryTable()
        #expect(table["k"] == nil)
        #expect(table.remove("k") == nil)
        #expect(table.count == 0)
    }
}
