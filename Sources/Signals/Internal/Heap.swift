/// A binary min-heap: the timer queue of `TestScheduler` (and of anything else that keeps deadlines).
package struct Heap<Element: Comparable> {
    private var elements: [Element] = []

    package init() {}

    package var isEmpty: Bool { elements.isEmpty }
    package var count: Int { elements.count }
    package var min: Element? { elements.first }

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

    package mutating func popMin() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let minimum = elements.removeLast()
        var parent = 0
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
        return minimum
    }
}

extension Heap: Sendable where Element: Sendable {}
