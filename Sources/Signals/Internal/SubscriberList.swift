/// The subscribers of a subject in subscription order, with O(1) insert and remove by id.
///
/// Removal leaves a hole that delivery skips; holes are compacted away once they are the majority, so a
/// subscribe + cancel never scans the list. A snapshot (`slots`) is a copy-on-write array: taking one is O(1).
package struct SubscriberList<Element> {
    package private(set) var slots: [Element?] = []
    private var indexByID: [UInt64: Int] = [:]

    package init() {}

    package var count: Int { indexByID.count }

    package mutating func append(_ element: Element, id: UInt64) {
        indexByID[id] = slots.count
        slots.append(element)
    }

    /// Removes the element with `id` and returns it, or nil when it is not (or no longer) here.
    package mutating func remove(id: UInt64) -> Element? {
        guard let index = indexByID.removeValue(forKey: id) else { return nil }
        let element = slots[index]
        slots[index] = nil
        while let last = slots.last, last == nil {
            slots.removeLast()
        }
        if slots.count > 32, indexByID.count * 2 < slots.count {
            compact()
        }
        return element
    }

    package mutating func removeAll() -> [Element?] {
        defer {
            slots = []
            indexByID = [:]
        }
        return slots
    }

    private mutating func compact() {
        var compacted: [Element?] = []
        compacted.reserveCapacity(indexByID.count)
        var ids = indexByID.sorted { $0.value < $1.value }.map(\.key)[...]
        for slot in slots where slot != nil {
            guard let id = ids.popFirst() else { break }
            indexByID[id] = compacted.count
            compacted.append(slot)
        }
        slots = compacted
    }
}

extension SubscriberList: Sendable where Element: Sendable {}
