/// The subscribers of a subject in subscription order, with O(1) insert and remove by id.
///
/// Removal leaves a hole that delivery skips; trailing holes are dropped at once and inner holes compacted
/// away once they are the majority, so a subscribe + cancel never scans the list. A snapshot (`slots`) is a
/// copy-on-write array: taking one is O(1).
@usableFromInline
package struct SubscriberList<Element> {
    @usableFromInline var slots: [Element?] = []
    @usableFromInline var ids: [UInt64] = []
    @usableFromInline var indexByID: [UInt64: Int] = [:]

    @inlinable
    package init() {}

    @inlinable
    package var count: Int { indexByID.count }

    /// The elements in subscription order, with holes where some were removed.
    @inlinable
    package var snapshot: [Element?] { slots }

    @inlinable
    package mutating func append(_ element: Element, id: UInt64) {
        indexByID[id] = slots.count
        slots.append(element)
        ids.append(id)
    }

    /// Removes the element with `id` and returns it, or nil when it is not (or no longer) here.
    @inlinable
    package mutating func remove(id: UInt64) -> Element? {
        guard let index = indexByID.removeValue(forKey: id) else { return nil }
        let element = slots[index]
        slots[index] = nil
        while let last = slots.last, last == nil {
            slots.removeLast()
            ids.removeLast()
        }
        if slots.count > 32, indexByID.count * 2 < slots.count {
            compact()
        }
        return element
    }

    @inlinable
    package mutating func removeAll() -> [Element?] {
        defer {
            slots = []
            ids = []
            indexByID = [:]
        }
        return slots
    }

    @inlinable
    mutating func compact() {
        var compactedSlots: [Element?] = []
        var compactedIDs: [UInt64] = []
        compactedSlots.reserveCapacity(indexByID.count)
        compactedIDs.reserveCapacity(indexByID.count)
        for (slot, id) in zip(slots, ids) where slot != nil {
            indexByID[id] = compactedSlots.count
            compactedSlots.append(slot)
            compactedIDs.append(id)
        }
        slots = compactedSlots
        ids = compactedIDs
    }
}

extension SubscriberList: Sendable where Element: Sendable {}
