import TestSupport
import Testing

@testable import Signals

@Suite struct LockedTests {
    @Test("many threads incrementing under the lock lose no update")
    func stress() {
        let counter = Locked(0)
        concurrently(8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("a released lock releases its state")
    func releasesState() {
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            let locked = Locked(token)
            #expect(locked.withLock { $0 } === token)
        }
        #expect(weakToken == nil)
    }

    #if DEBUG && !canImport(Darwin)
        @Test("a re-entrant withLock stops the program with the lock's error instead of deadlocking (debug builds)")
        func reentrantLockStops() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let locked = Locked(0)
                locked.withLock { _ in locked.withLock { $0 += 1 } }
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("Locked: lock failed"), "the failure names the lock: \(message)")
        }
    #endif
}

@Suite struct FIFOTests {
    @Test("pops in insertion order across growth and compaction")
    func order() {
        var fifo = FIFO<Int>()
        var expected = 0
        var pushed = 0
        for round in 0..<10 {
            for _ in 0..<(100 * (round + 1)) {
                fifo.append(pushed)
                pushed += 1
            }
            for _ in 0..<(50 * (round + 1)) {
                #expect(fifo.popFirst() == expected)
                expected += 1
            }
        }
        while let value = fifo.popFirst() {
            #expect(value == expected)
            expected += 1
        }
        #expect(fifo.isEmpty)
        #expect(expected == pushed)
    }
}

@Suite struct HeapTests {
    @Test("popMin returns elements in ascending order")
    func sorted() {
        var heap = Heap<Int>()
        let values = (0..<500).map { ($0 * 7919) % 503 }
        for value in values { heap.insert(value) }
        var popped: [Int] = []
        while let value = heap.popMin() { popped.append(value) }
        #expect(popped == values.sorted())
    }
}

@Suite struct SubscriberListTests {
    @Test("keeps subscription order through removals and compaction")
    func order() {
        var list = SubscriberList<Int>()
        for id in 0..<200 { list.append(Int(id), id: UInt64(id)) }
        for id in stride(from: 0, to: 200, by: 3) { _ = list.remove(id: UInt64(id)) }
        for id in stride(from: 1, to: 200, by: 3) { _ = list.remove(id: UInt64(id)) }
        let remaining = list.snapshot.compactMap { $0 }
        #expect(remaining == Array(stride(from: 2, to: 200, by: 3)))
        #expect(list.count == remaining.count)
        #expect(list.remove(id: 0) == nil)
        #expect(list.remove(id: 2) == 2)
    }
}
