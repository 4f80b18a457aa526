import Testing

@testable import Loft

@Suite struct ScopeLineTests {
    @Test("the first call's leaving wakes the next one waiting; a call leaving before its turn wakes nobody")
    func turns() {
        var line = ScopeLine()
        let woken = Locked<[UInt64]>([])
        for id: UInt64 in 1...3 {
            line.append(id)
            line.wait(id) { woken.withLock { $0.append(id) } }
        }
        #expect(line.first == 1)
        #expect(line.remove(2) == nil, "a call cancelled while waiting leaves, the turn stays")
        #expect(line.first == 1)
        line.remove(1)?()
        #expect(woken.withLock { $0 } == [3])
        #expect(line.first == 3)
        #expect(line.remove(3) == nil)
        #expect(line.isEmpty)
    }

    @Test("10,000 calls take their turns in submission order through the compactions of the line")
    func longLineKeepsOrder() {
        var line = ScopeLine()
        for id: UInt64 in 1...10_000 { line.append(id) }
        var order: [UInt64] = []
        while let first = line.first {
            order.append(first)
            _ = line.remove(first)
            if first % 7 == 0, let next = line.first { line.append(next + 100_000) }
        }
        #expect(order.prefix(10_000) == ArraySlice(1...10_000))
        #expect(order.count == 10_000 + 10_000 / 7)
        #expect(line.isEmpty)
    }
}
