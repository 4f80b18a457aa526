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

    @Test("an empty table finds nothing and removes nothing")
    func empty() {
        var table = EntryTable()
        #expect(table["k"] == nil)
        #expect(table.remove("k") == nil)
        #expect(table.count == 0)
    }
}
