/// A client's entries by key: a hash table of the entries themselves (each holds its key), 8 bytes a slot
/// instead of a dictionary's 24 (a key and a reference), open addressing with linear probing.
///
/// **Behavior**
/// - A slot is found from the key's hash, computed when the key was made (seeded per process, as every
///   `Hashable` hash is), and compared with the entry's key (hash first, then parts).
/// - At most three quarters full: it doubles before an insertion would fill more. It halves once a removal
///   leaves it an eighth full (8 slots at least): a client whose entries are collected, evicted or trimmed
///   after a burst of keys gives the burst's slots back (a million keys held 16 MB of slots), and one that
///   hovers around a size never grows and shrinks in turn (a quarter full after halving, far from the three
///   quarters that double it).
/// - A removal shifts the entries after it back into the gap (no tombstones): a table whose keys churn (a
///   service evicting under its budget) keeps its probes as short as a fresh one's.
struct EntryTable: Sendable {
    /// A power of two (or none before the first insertion).
    private var slots: [QueryCacheEntry?] = []
    /// How many entries it holds.
    private(set) var count = 0

    /// How many slots it has, 8 bytes each: a power of two, `minimumCapacity` at least once an entry was inserted.
    var capacity: Int { slots.count }

    /// The fewest slots it has once it has any: it starts there and shrinks no further.
    private static let minimumCapacity = 8

    /// The entry of `key`, if any.
    subscript(key: QueryKey) -> QueryCacheEntry? {
        guard let index = slot(of: key) else { return nil }
        return slots[index]
    }

    /// Every entry, in no particular order.
    var values: [QueryCacheEntry] {
        slots.compactMap { $0 }
    }

    /// The entries for which `isIncluded` holds, in no particular order, in an array allocated once at its
    /// size (counted first). Each entry is read in place: the others are neither retained nor released (a pass
    /// over 10,000 entries that picks 100, row (k)).
    @inline(__always)
    func filter(_ isIncluded: (QueryCacheEntry) -> Bool) -> [QueryCacheEntry] {
        // `slots[index].map(isIncluded)` reads the slot in place; binding it (`if let`) retained every entry.
        var picked: [QueryCacheEntry] = []
        picked.reserveCapacity(slots.indices.count { slots[$0].map(isIncluded) == true })
        for index in slots.indices where slots[index].map(isIncluded) == true {
            if let entry = slots[index] { picked.append(entry) }
        }
        return picked
    }

    /// Every key, in no particular order.
    var keys: [QueryKey] {
        slots.compactMap { $0?.key }
    }

    /// Adds `entry`, replacing the one of its key if any.
    mutating func insert(_ entry: QueryCacheEntry) {
        if let index = slot(of: entry.key) {
            slots[index] = entry
            return
        }
        if (count + 1) * 4 > slots.count * 3 { resize(to: max(Self.minimumCapacity, slots.count * 2)) }
        place(entry)
        count += 1
    }

    /// Removes the entry of `key` and returns it (nil when there is none).
    @discardableResult
    mutating func remove(_ key: QueryKey) -> QueryCacheEntry? {
        guard var hole = slot(of: key) else { return nil }
        let removed = slots[hole]
        // Backward shift: each entry after the gap, up to the next empty slot, moves into the gap unless its
        // home lies after the gap (cyclically), where a probe for it would not pass the gap.
        var next = (hole + 1) & mask
        while let entry = slots[next] {
            let home = home(of: entry.key)
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = entry
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = nil
        count -= 1
        if slots.count > Self.minimumCapacity, count * 8 <= slots.count { resize(to: slots.count / 2) }
        return removed
    }

    private var mask: Int { slots.count - 1 }

    private func home(of key: QueryKey) -> Int {
        key._rawHashValue(seed: 0) & mask
    }

    /// The slot holding `key`'s entry, if any.
    private func slot(of key: QueryKey) -> Int? {
        guard count > 0 else { return nil }
        var index = home(of: key)
        while let entry = slots[index] {
            if entry.key == key { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Makes `capacity` slots (a power of two that holds every entry) and places every entry again.
    private mutating func resize(to capacity: Int) {
        let old = slots
        slots = Array(repeating: nil, count: capacity)
        for case let entry? in old { place(entry) }
    }

    /// Puts `entry` in the first empty slot from its home (its key is not in the table).
    private mutating func place(_ entry: QueryCacheEntry) {
        var index = home(of: entry.key)
        while slots[index] != nil { index = (index + 1) & mask }
        slots[index] = entry
    }
}
