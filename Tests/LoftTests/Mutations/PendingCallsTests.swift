import LoftTesting
import Testing

@testable import Loft

/// A mutation's pending calls: settled in order or out of it, listed oldest first.
@Suite struct PendingCallsTests {
    @Test("calls that settle in submission order leave nothing behind")
    func inOrder() {
        var pending = PendingCalls()
        for id in UInt64(1)...100 {
            pending.add(id)
            if id > 3 { pending.settle(id - 3) }
        }
        #expect(pending.ids == [98, 99, 100])
        for id in UInt64(98)...100 { pending.settle(id) }
        #expect(pending.ids.isEmpty)
    }

    @Test("a call that settles ahead of older ones is off the list at once, and the front passes it later")
    func outOfOrder() {
        var pending = PendingCalls()
        for id in UInt64(1)...5 { pending.add(id) }
        pending.settle(3)
        pending.settle(5)
        #expect(pending.ids == [1, 2, 4])
        pending.settle(1)
        #expect(pending.ids == [2, 4])
        pending.settle(2)
        #expect(pending.ids == [4])
        pending.settle(4)
        #expect(pending.ids.isEmpty)
        pending.add(6)
        #expect(pending.ids == [6])
    }

    @Test("random settling orders agree with a set")
    func agreesWithASet() {
        var pending = PendingCalls()
        var model = Set<UInt64>()
        var next: UInt64 = 0
        var random = SeededRandom(seed: 7)
        for _ in 0..<5_000 {
            if model.isEmpty || Int.random(in: 0..<3, using: &random) == 0 {
                next += 1
                pending.add(next)
                model.insert(next)
            } else {
                // Mostly the oldest, sometimes another.
                let ordered = model.sorted()
                let id =
                    Int.random(in: 0..<4, using: &random) == 0
                    ? ordered.randomElement(using: &random) ?? ordered[0] : ordered[0]
                pending.settle(id)
                model.remove(id)
            }
            #expect(pending.ids == model.sorted())
        }
    }
}
