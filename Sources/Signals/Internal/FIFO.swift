/// A first-in first-out queue with amortised O(1) push and pop, used by the delivery queues.
///
/// Inlinable (like the other types on a subject's hot path) so that it is specialised for the client's types.
@usableFromInline
package struct FIFO<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0

    @inlinable
    package init() {}

    @inlinable
    package var isEmpty: Bool { head == storage.count }

    @inlinable
    package var count: Int { storage.count - head }

    /// The element `popFirst()` would return, left in place.
    @inlinable
    package var first: Element? { head < storage.count ? storage[head] : nil }

    @inlinable
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    @inlinable
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

    @inlinable
    package mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}
