/// The calls of one mutation scope, in submission order: the first one runs, the others wait for their turn.
/// Taking out the first call costs the same however long the line is (the ids that left stay at the front
/// until they are half of the array), so that 1,000 calls submitted at once in one scope settle in linear time.
struct ScopeLine: Sendable {
    private var ids: [UInt64] = []
    /// How many ids at the front have left.
    private var head = 0
    /// How to wake the calls waiting for their turn.
    private var resumes: [UInt64: @Sendable () -> Void] = [:]

    /// The call whose turn it is.
    var first: UInt64? {
        head < ids.count ? ids[head] : nil
    }

    /// Whether every call left.
    var isEmpty: Bool {
        head == ids.count
    }

    /// Puts a call at the end of the line.
    mutating func append(_ id: UInt64) {
        ids.append(id)
    }

    /// Keeps how to wake `id` when its turn comes.
    mutating func wait(_ id: UInt64, resume: @escaping @Sendable () -> Void) {
        resumes[id] = resume
    }

    /// Takes `id` out of the line; returns how to wake the call whose turn it is now, if `id` had the turn and
    /// the next call waits.
    mutating func remove(_ id: UInt64) -> (@Sendable () -> Void)? {
        resumes[id] = nil
        guard first == id else {
            // A call that leaves before its turn (cancelled while waiting): rare, and found by a search.
            if let index = ids[head...].firstIndex(of: id) { ids.remove(at: index) }
            return nil
        }
        head += 1
        if head * 2 >= ids.count {
            ids.removeFirst(head)
            head = 0
        }
        return first.flatMap { resumes.removeValue(forKey: $0) }
    }
}
