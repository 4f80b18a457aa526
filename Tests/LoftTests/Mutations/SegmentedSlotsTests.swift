import LoftTesting
import Testing

@testable import Loft

/// The segmented storage under the mutation cache's table: it behaves as an array, and dropping its front frees
/// whole segments.
@Suite struct SegmentedSlotsTests {
    @Test("appends across segments are read back by index, changed in place and dropped from the front")
    func appendReadUpdateDrop() {
        let size = SegmentedSlots<Int>.segmentSize
        var slots = SegmentedSlots<Int>(empty: -1)
        for value in 0..<(3 * size + 5) { slots.append(value) }
        #expect(slots.count == 3 * size + 5)
        #expect(slots[0] == 0)
        #expect(slots[size] == size)
        #expect(slots.read(3 * size + 4) { $0 } == 3 * size + 4)
        let doubled = slots.update(size + 1) { value -> Int in
            value *= 2
            return value
        }
        #expect(doubled == 2 * (size + 1))
        #expect(slots[size + 1] == 2 * (size + 1))
        slots.removeFirst(size + 3)
        #expect(slots.count == 2 * size + 2)
        #expect(slots[0] == size + 3)
        #expect(slots.segmentCount == 3)
        slots.removeFirst(size)
        #expect(slots[0] == 2 * size + 3)
        #expect(slots.segmentCount == 2)
        slots.append(99)
        #expect(slots[slots.count - 1] == 99)
        slots.removeAll()
        #expect(slots.isEmpty)
        #expect(slots.segmentCount <= 1)
        slots.append(7)
        #expect(slots.count == 1)
        #expect(slots[0] == 7)
    }

    @Test("dropping everything at once, or nothing, keeps it usable")
    func dropEverythingOrNothing() {
        var slots = SegmentedSlots<String>(empty: "")
        slots.removeFirst(0)
        #expect(slots.isEmpty)
        for value in 0..<10 { slots.append("\(value)") }
        slots.removeFirst(0)
        #expect(slots.count == 10)
        slots.removeFirst(10)
        #expect(slots.isEmpty)
        slots.append("next")
        #expect(slots[0] == "next")
    }

    @Test("dropped slots keep nothing alive")
    func droppedSlotsReleaseTheirElements() {
        final class Tracked: Sendable {}
        var slots = SegmentedSlots<Tracked?>(empty: nil)
        weak var first: Tracked?
        do {
            let tracked = Tracked()
            first = tracked
            slots.append(tracked)
        }
        slots.append(Tracked())
        #expect(first != nil)
        slots.removeFirst(1)
        #expect(first == nil)
        #expect(slots.count == 1)
    }

    @Test("random appends, changes and drops agree with an array")
    func agreesWithAnArray() {
        var slots = SegmentedSlots<Int>(empty: 0)
        var model: [Int] = []
        var random = SeededRandom(seed: 5)
        for step in 0..<20_000 {
            switch random.next() % 5 {
            case 0, 1, 2:
                slots.append(step)
                model.append(step)
            case 3:
                guard !model.isEmpty else { continue }
                let index = Int(random.next() % UInt64(model.count))
                slots[index] += 1
                model[index] += 1
            default:
                let dropped = Int(random.next() % UInt64(min(model.count, 100) + 1))
                slots.removeFirst(dropped)
                model.removeFirst(dropped)
            }
            #expect(slots.count == model.count)
            if step % 500 == 0 {
                #expect((0..<slots.count).map { slots[$0] } == model)
            }
            let size = SegmentedSlots<Int>.segmentSize
            #expect(slots.segmentCount <= (model.count + size - 1) / size + 1)
        }
    }
}
