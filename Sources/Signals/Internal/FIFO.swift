/// A first-in first-out queue with amortised O(1) push and pop, used by the delivery queues.
package struct FIFO<Element> {
    private var storage: [Element?] = []
    private var head = 0

    package init() {}

    package var isEmpty: Bool { head == storage.count }
    package var count: Int { storage.count - head }

    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    package mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count < 1024)
            head = 0
        } else if head > 64, head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    package mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}
