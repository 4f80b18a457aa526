/// Keys in order of use, least recent first, with O(1) touch, removal and eviction: the order of
/// `InMemoryQueryCache` and of the byte quota of `JSONFileQueryCache`.
package struct LRUList<Key: Hashable & Sendable>: Sendable {
    private struct Node {
        var key: Key
        var older: Int?
        var newer: Int?
    }

    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    private var slots: [Key: Int] = [:]
    private var oldest: Int?
    private var newest: Int?

    package init() {}

    package var count: Int { slots.count }

    package var leastRecent: Key? {
        oldest.map { nodes[$0].key }
    }

    package var mostRecent: Key? {
        newest.map { nodes[$0].key }
    }

    package func contains(_ key: Key) -> Bool {
        slots[key] != nil
    }

    /// Marks `key` as the most recently used, adding it when missing.
    package mutating func touch(_ key: Key) {
        if let slot = slots[key] {
            unlink(slot)
            link(slot)
            return
        }
        let node = Node(key: key, older: nil, newer: nil)
        let slot: Int
        if let free = freeSlots.popLast() {
            nodes[free] = node
            slot = free
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[key] = slot
        link(slot)
    }

    /// Marks `key` as the most recently used if it is listed; returns whether it is.
    @discardableResult
    package mutating func touchIfListed(_ key: Key) -> Bool {
        guard let slot = slots[key] else { return false }
        unlink(slot)
        link(slot)
        return true
    }

    package mutating func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        unlink(slot)
        freeSlots.append(slot)
    }

    package mutating func removeAll() {
        self = LRUList()
    }

    /// The keys from least to most recently used.
    package var keysFromLeastRecent: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var slot = oldest
        while let current = slot {
            keys.append(nodes[current].key)
            slot = nodes[current].newer
        }
        return keys
    }

    private mutating func link(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = nil
        if let newest { nodes[newest].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (older, newer) = (nodes[slot].older, nodes[slot].newer)
        if let older { nodes[older].newer = newer } else { oldest = newer }
        if let newer { nodes[newer].older = older } else { newest = older }
    }
}
