import LoftTesting
import Testing

@testable import Loft

/// The mutation cache's table of records by call id: lookups, holes, and the memory a long-pending call keeps.
@Suite struct CallTableTests {
    @Test("records are found, changed and removed by id, and listed in id order")
    func readUpdateRemove() {
        var table = CallTable<String>()
        for id in 1...5 { table.insert("call \(id)", for: UInt64(id)) }
        #expect(table.read(3) { $0 } == "call 3")
        #expect(table.read(9) { $0 } == nil)
        let length = table.update(2) { record -> Int in
            record += " settled"
            return record.count
        }
        #expect(length == 14)
        #expect(table.update(9) { _ in 0 } == nil)
        #expect(table.remove(4) == "call 4")
        #expect(table.remove(4) == nil)
        #expect(table.read(4) { $0 } == nil)
        #expect(table.values == ["call 1", "call 2 settled", "call 3", "call 5"])
        #expect(table.count == 4)
    }

    @Test("calls removed in the order they came leave no slots behind")
    func removedInOrderFreeEverything() {
        var table = CallTable<Int>()
        for id in 1...1_000 {
            table.insert(id, for: UInt64(id))
            if id > 10 { #expect(table.remove(UInt64(id - 10)) == id - 10) }
        }
        #expect(table.count == 10)
        #expect(table.footprint.slots <= 64)
        for id in 991...1_000 { table.remove(UInt64(id)) }
        #expect(table.footprint == (0, 0))
        table.insert(1_001, for: 1_001)
        #expect(table.values == [1_001])
    }

    @Test("a call that stays pending keeps no holes of the calls removed after it, and stays readable")
    func longPendingCallIsKeptAside() {
        var table = CallTable<Int>()
        table.insert(0, for: 1)
        for id in 2...10_001 {
            table.insert(id, for: UInt64(id))
            table.remove(UInt64(id))
        }
        #expect(table.count == 1)
        #expect(table.footprint.slots <= 64)
        #expect(table.footprint.aside == 1)
        let changed = table.update(1) { record -> Int in
            record = 42
            return record
        }
        #expect(changed == 42)
        #expect(table.read(1) { $0 } == 42)
        #expect(table.values == [42])
        #expect(table.remove(1) == 42)
        #expect(table.count == 0)
    }

    @Test("removing by a condition returns what it removed in id order, kept aside or not")
    func removeAllWhere() {
        var table = CallTable<Int>()
        table.insert(1, for: 1)
        for id in 2...200 {
            table.insert(id, for: UInt64(id))
            if id < 190 { table.remove(UInt64(id)) }
        }
        #expect(table.footprint.aside == 1)
        let removed = table.removeAll { $0 % 2 == 1 }
        #expect(removed == [1, 191, 193, 195, 197, 199])
        #expect(table.values == [190, 192, 194, 196, 198, 200])
    }

    @Test("random inserts, changes and removals agree with a dictionary, and holes stay bounded")
    func agreesWithADictionary() {
        var table = CallTable<UInt64>()
        var model: [UInt64: UInt64] = [:]
        var random = SeededRandom(seed: 11)
        var nextID: UInt64 = 0
        for step in 0..<20_000 {
            switch random.next() % 4 {
            case 0, 1:
                nextID += 1
                table.insert(nextID, for: nextID)
                model[nextID] = nextID
            case 2:
                // Mostly the oldest calls go, as garbage collection removes them; some never do.
                guard nextID > 0 else { continue }
                let id =
                    random.next() % 8 == 0
                    ? random.next() % nextID + 1 : nextID - min(nextID - 1, random.next() % 40)
                #expect(table.remove(id) == model.removeValue(forKey: id))
            default:
                guard nextID > 0 else { continue }
                let id = random.next() % nextID + 1
                let changed = table.update(id) { value -> UInt64 in
                    value &+= 1
                    return value
                }
                #expect(changed == model[id].map { $0 &+ 1 })
                model[id]? &+= 1
            }
            if step % 1_000 == 0 {
                #expect(table.values == model.keys.sorted().compactMap { model[$0] })
            }
            #expect(table.count == model.count)
            #expect(table.footprint.slots <= max(64, 4 * table.count + 64))
        }
    }
}
