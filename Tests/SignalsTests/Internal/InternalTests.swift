import TestSupport
import Testing

@testable import Signals

@Suite struct LockedTests {
    #if DEBUG
        @Test("a debug build stops a subject's send made while a lock is held")
        func sendUnderLockStops() async {
            await #expect(processExitsWith: .failure) {
                let subject = PassthroughSubject<Int, Never>()
                Locked(0).withLock { _ in subject.send(1) }
            }
        }
    #endif

    @Test("a send after the lock is released is fine; the count of held locks follows nesting")
    func sendAfterLock() {
        let subject = PassthroughSubject<Int, Never>()
        let (outer, inner) = (Locked(0), Locked(0))
        outer.withLock { _ in inner.withLock { $0 += 1 } }
        HeldLocks.assertNoneHeld("a test")
        subject.send(1)
        #expect(inner.withLock { $0 } == 1)
    }

    @Test("many threads incrementing under the lock lose no update")
    func stress() {
        let counter = Locked(0)
        concurrently(8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    #if !canImport(Darwin)
        @Test(
            "a thread that finds the lock held sleeps until the holder releases it, then takes it",
            .timeLimit(.minutes(1)))
        func contendedHandOver() {
            let counter = Locked(0)
            // The lock's word: 1 held, 2 held with a thread asleep on it.
            let word: @Sendable () -> UInt32 = {
                counter.storage.withUnsafeMutablePointerToElements { $0.pointee.word.load(ordering: .relaxed) }
            }
            concurrently(2) { index in
                if index == 0 {
                    counter.withLock { value in
                        // Held until the other thread has found it held and gone to sleep on it.
                        while word() != 2 {}
                        value += 1
                    }
                } else {
                    // Waits for the first thread to hold the lock, then asks for it.
                    while word() == 0 {}
                    counter.withLock { $0 += 10 }
                }
            }
            #expect(counter.withLock { $0 } == 11)
            #expect(word() == 0)
        }
    #endif

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

    @Test("removeAll(where:) drops what it names and keeps the rest in heap order", arguments: [0, 1, 2, 3, 500])
    func removeAll(count: Int) {
        var heap = Heap<Int>()
        let values = (0..<count).map { ($0 * 7919) % 503 }
        for value in values { heap.insert(value) }
        heap.removeAll { $0 % 3 == 0 }
        heap.insert(1)
        var popped: [Int] = []
        while let value = heap.popMin() { popped.append(value) }
        #expect(popped == (values.filter { $0 % 3 != 0 } + [1]).sorted())
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

@Suite struct ErasedObjectTests {
    final class Kept: Sendable {
        let value: Int

        init(_ value: Int) {
            self.value = value
        }
    }

    final class Other: Sendable {}

    @Test("an object kept without its type reads back as its type; === compares the objects")
    func readsBack() {
        let kept = Kept(7)
        let erased = ErasedObject(kept)
        #expect(erased.unwrap(as: Kept.self) === kept)
        #expect(erased.unwrap(as: Kept.self).value == 7)
        #expect(erased === ErasedObject(kept))
        #expect(erased !== ErasedObject(Kept(7)))
    }

    #if DEBUG
        @Test("a debug build stops a read as another type, naming both types")
        func wrongTypeStops() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                _ = ErasedObject(Kept(1)).unwrap(as: Other.self)
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("Kept") && message.contains("Other"), "the failure names both types: \(message)")
        }
    #endif
}
