/// The mutation cache's records by call id. Ids are handed out one after another, so a record is found by its
/// distance from the first one kept: no hashing, and growing moves no record (the slots are kept in segments,
/// `SegmentedSlots`). A mutation cache holds every call until `gcTime` after it settled (tens of thousands in a busy
/// minute), and every call looks its record up three times.
///
/// **Behavior**
/// - Ids are appended in increasing order (a gap is allowed and left empty).
/// - Removed records leave a hole; the holes at the front are dropped, so that calls removed in the order they
///   came cost no memory.
/// - A record kept long after the ones around it were removed (a call that stays pending) does not keep their
///   holes: when at most a quarter of the slots hold a record, the older half of the slots is dropped and its
///   records are kept aside, by id. Holes thus never outnumber records by more than about four to one.
struct CallTable<Record: Sendable>: Sendable {
    /// The id of `slots[0]`.
    private var base: UInt64 = 1
    private var slots = SegmentedSlots<Record?>(empty: nil)
    /// Whether each slot holds a record, beside the slots: asking a slot itself copies its record out (and
    /// destroys the copy) through the optional's generic code.
    private var filled = SegmentedSlots<Bool>(empty: false)
    /// Slots before this one are empty.
    private var head = 0
    /// How many slots hold a record.
    private var live = 0
    /// Records older than `base`, moved out of a table that had become mostly holes.
    private var aside: [UInt64: Record] = [:]

    /// How many records the table holds.
    var count: Int { live + aside.count }

    /// How many slots the table keeps, holes included, and how many records it keeps aside (for tests).
    var footprint: (slots: Int, aside: Int) { (slots.count - head, aside.count) }

    /// The record of `id`, if the table holds one.
    @inline(__always)
    func read<Result>(_ id: UInt64, _ body: (borrowing Record) -> Result) -> Result? {
        if id < base { return aside[id].map(body) }
        guard let index = slot(of: id), filled[index] else { return nil }
        // Read in its slot (checked to hold it just above): nothing is copied.
        return slots.read(index) { body($0!) }
    }

    /// Changes the record of `id` in place, if the table holds one; returns what `body` returns.
    @inline(__always)
    mutating func update<Result>(_ id: UInt64, _ body: (inout Record) -> Result) -> Result? {
        if id < base {
            guard var record = aside.removeValue(forKey: id) else { return nil }
            defer { aside[id] = record }
            return body(&record)
        }
        guard let index = slot(of: id), filled[index] else { return nil }
        // Changed in its slot (checked to hold it just above): nothing is copied or moved.
        return slots.update(index) { body(&$0!) }
    }

    /// Adds the record of a new call: `id` is above every id the table was given before.
    mutating func insert(_ record: consuming Record, for id: UInt64) {
        if slots.isEmpty { base = id }
        guard id >= base + UInt64(slots.count) else {
            // Never for the mutation cache: its ids only grow. Kept aside rather than lost.
            aside[id] = record
            return
        }
        while base + UInt64(slots.count) < id {
            slots.append(nil)
            filled.append(false)
        }
        slots.append(record)
        filled.append(true)
        live += 1
    }

    /// Removes the record of `id`; returns it.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Record? {
        if id < base { return aside.removeValue(forKey: id) }
        guard let index = slot(of: id), let record = slots.update(index, { $0.take() }) else { return nil }
        filled[index] = false
        live -= 1
        dropHoles()
        return record
    }

    /// Every record, in id order.
    var values: [Record] {
        aside.sorted { $0.key < $1.key }.map(\.value) + (head..<slots.count).compactMap { slots[$0] }
    }

    /// Removes the records `shouldRemove` picks; returns them in id order.
    mutating func removeAll(where shouldRemove: (Record) -> Bool) -> [Record] {
        var removed: [Record] = []
        for id in aside.keys.sorted() {
            guard let record = aside[id], shouldRemove(record) else { continue }
            aside[id] = nil
            removed.append(record)
        }
        for index in head..<slots.count {
            guard let record = slots[index], shouldRemove(record) else { continue }
            removed.append(record)
            slots[index] = nil
            filled[index] = false
            live -= 1
        }
        dropHoles()
        return removed
    }

    /// The index of `id`'s slot, if the slots reach it.
    private func slot(of id: UInt64) -> Int? {
        let index = id - base
        return index < UInt64(slots.count) ? Int(index) : nil
    }

    /// Drops the holes at the front, and the older half of a table that is mostly holes.
    private mutating func dropHoles() {
        if live == 0 {
            dropFront(slots.count)
            return
        }
        if slots.count >= 64, live * 4 <= slots.count {
            let half = slots.count / 2
            for index in head..<max(head, half) where filled[index] {
                aside[base + UInt64(index)] = slots[index]
                live -= 1
            }
            dropFront(half)
        }
        while head < slots.count, !filled[head] { head += 1 }
        // Moved down only when the front is at least half the slots: each slot is moved O(1) times.
        if head >= 32, head * 2 >= slots.count { dropFront(head) }
    }

    private mutating func dropFront(_ dropped: Int) {
        if dropped == slots.count {
            slots.removeAll()
            filled.removeAll()
        } else {
            slots.removeFirst(dropped)
            filled.removeFirst(dropped)
        }
        base += UInt64(dropped)
        head = max(0, head - dropped)
    }
}
