/// A binary min-heap: the timer queue of `TestScheduler` (and of anything else that keeps deadlines).
///
/// Inlinable, so that the modules using it specialise it for their element (unspecialised, every comparison
/// and copy goes through the element's witness table: a client's timer queue paid thousands of instructions
/// per timer for it).
@usableFromInline
package struct Heap<Element: Comparable> {
    @usableFromInline var elements: [Element] = []

    @inlinable
    package init() {}

    @inlinable
    package var isEmpty: Bool { elements.isEmpty }
    @inlinable
    package var count: Int { elements.count }
    @inlinable
    package var min: Element? { elements.first }

    @inlinable
    package mutating func insert(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable
    package mutating func popMin() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let minimum = elements.removeLast()
        siftDown(from: 0)
        return minimum
    }

    /// Removes every element that `shouldRemove` names, then restores the heap order: O(n), for dropping many
    /// dead elements at once (cheaper than popping each when it comes up).
    @inlinable
    package mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        elements.removeAll(where: shouldRemove)
        for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
    }

    @inlinable
    mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { break }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension Heap: Sendable where Element: Sendable {}
