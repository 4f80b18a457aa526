/// A mutation's pending calls, in submission order. Calls mostly settle in the order they were submitted (a
/// scope runs them so, and an immediate fetcher settles each before the next is made), so the oldest is taken
/// off the front without hashing; a call that settles ahead of older ones is noted apart until the front
/// reaches it.
///
/// **Behavior**
/// - `add` takes ids in increasing order (a mutation's calls get theirs from its client, one after another).
/// - `settle` of the oldest pending call costs O(1); of another, one set insertion, removed again when the
///   front passes it.
/// - `ids` lists the calls still pending, oldest first.
struct PendingCalls: Sendable {
    private var queue: [UInt64] = []
    /// Ids before this index settled.
    private var head = 0
    /// Ids after `head` that settled ahead of older ones.
    private var settledEarly: Set<UInt64> = []

    /// Notes a new pending call.
    mutating func add(_ id: UInt64) {
        queue.append(id)
    }

    /// Takes a call off the pending ones.
    mutating func settle(_ id: UInt64) {
        guard head < queue.count, queue[head] == id else {
            // Only calls that were added settle: this one is further along the queue.
            settledEarly.insert(id)
            return
        }
        head += 1
        while head < queue.count, settledEarly.remove(queue[head]) != nil { head += 1 }
        if head == queue.count {
            // Most mutations have one call pending at a time: dropping it alone is cheaper than emptying.
            if queue.count == 1 { queue.removeLast() } else { queue.removeAll(keepingCapacity: true) }
            head = 0
        } else if head >= 32, head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    /// The calls still pending, oldest first.
    var ids: [UInt64] {
        queue[head...].filter { !settledEarly.contains($0) }
    }
}
