import Synchronization

/// What a client with a `MemoryBudget` holds against it: every entry's cost, the total, and the entries that
/// may be evicted (nobody observes them and they are not fetching), least recently used first.
///
/// A leaf lock: the client takes it inside its own lock (an entry made or removed) and an entry inside its own
/// (the entry turning idle or busy, in the hold that changed it, so the list follows the machine's order of
/// events); it calls nothing while held. Entries are tracked by identity: a removed entry's late events never
/// touch its key's next entry.
package final class MemoryLedger: Sendable {
    private struct Tracked: Sendable {
        let entry: QueryCacheEntry
        var cost: Int
        /// The data version `cost` was measured on (a later measure wins).
        var costVersion: UInt64
    }

    private struct State: Sendable {
        var tracked: [ObjectIdentifier: Tracked] = [:]
        /// The entries that may be evicted, least recently used first.
        var idle = LRUList<ObjectIdentifier>()
        var total = 0
        /// The client was found over its limit with nothing to evict, and said so; cleared once under it.
        var isReportedOver = false
    }

    /// What enforcing the budget asks for next.
    package enum Step: Sendable {
        /// Within the limit (or over it and reported already): nothing to do.
        case done
        /// Evict this entry (the least recently used that may be), then ask again.
        case evict(QueryCacheEntry)
        /// Over the limit with nothing that may be evicted: report it once.
        case over(used: Int)
    }

    package let budget: MemoryBudget
    private let state = Locked(State())
    /// The most recently used idle entry's identity (0: none), mirrored after every change of the list: reading
    /// one key again and again (a hot item) moves nothing, so its reads take no lock here.
    private let mostRecent = Atomic<UInt>(0)

    package init(budget: MemoryBudget) {
        self.budget = budget
    }

    /// The entries' total cost.
    package var total: Int {
        state.withLock { $0.total }
    }

    /// How many entries may be evicted now.
    package var evictableCount: Int {
        state.withLock { $0.idle.count }
    }

    /// Counts a new entry in, as in use (its maker is about to use it); its machine says when it turns idle.
    package func add(_ entry: QueryCacheEntry) {
        state.withLock { state in
            state.tracked[ObjectIdentifier(entry)] = Tracked(entry: entry, cost: 1, costVersion: 0)
            state.total += 1
        }
    }

    /// Counts a removed entry out.
    package func remove(_ entry: QueryCacheEntry) {
        let id = ObjectIdentifier(entry)
        state.withLock { state in
            guard let tracked = state.tracked.removeValue(forKey: id) else { return }
            state.idle.remove(id)
            state.total -= tracked.cost
            mirrorMostRecent(state)
        }
    }

    /// The entry turned idle (evictable, as the most recently used) or busy. Returns whether the client is over
    /// its limit (an idle entry may now be evicted).
    package func setIdle(_ entry: QueryCacheEntry, _ isIdle: Bool) -> Bool {
        let id = ObjectIdentifier(entry)
        return state.withLock { state in
            guard state.tracked[id] != nil else { return false }
            if isIdle { state.idle.touch(id) } else { state.idle.remove(id) }
            mirrorMostRecent(state)
            return isIdle && state.total > budget.limit
        }
    }

    /// A read used the entry: an idle one becomes the most recently used.
    package func touch(_ entry: QueryCacheEntry) {
        let id = ObjectIdentifier(entry)
        // The most recent already: nothing would move. An entry the list does not hold is never the mirror.
        guard mostRecent.load(ordering: .relaxed) != UInt(bitPattern: id) else { return }
        state.withLock { state in
            if state.idle.touchIfListed(id) { mirrorMostRecent(state) }
        }
    }

    /// Stores the list's most recent entry in `mostRecent`, in the lock hold that changed the list.
    private func mirrorMostRecent(_ state: State) {
        mostRecent.store(state.idle.mostRecent.map { UInt(bitPattern: $0) } ?? 0, ordering: .relaxed)
    }

    /// The entry's data of `version` costs `cost`. Returns whether the client is over its limit.
    package func setCost(_ entry: QueryCacheEntry, _ cost: Int, version: UInt64) -> Bool {
        let id = ObjectIdentifier(entry)
        return state.withLock { state in
            guard var tracked = state.tracked[id], tracked.costVersion <= version else { return false }
            state.total += cost - tracked.cost
            tracked.cost = cost
            tracked.costVersion = version
            state.tracked[id] = tracked
            return state.total > budget.limit
        }
    }

    /// The next step towards `limit`: the least recently used idle entry, taken off the list (an entry that
    /// turned busy meanwhile refuses, and is listed again when it turns idle). With `reportsOver`, being over
    /// the limit with nothing to evict is reported once, until the total is back within it.
    package func nextStep(towards limit: Int, reportsOver: Bool) -> Step {
        state.withLock { state in
            guard state.total > limit else {
                if limit >= budget.limit { state.isReportedOver = false }
                return .done
            }
            if let id = state.idle.leastRecent, let tracked = state.tracked[id] {
                state.idle.remove(id)
                mirrorMostRecent(state)
                return .evict(tracked.entry)
            }
            guard reportsOver, !state.isReportedOver else { return .done }
            state.isReportedOver = true
            return .over(used: state.total)
        }
    }

    /// Forgets every entry (the client is gone: the entries hold its context, which holds this ledger).
    package func removeAll() {
        state.withLock { state in
            state = State()
            mirrorMostRecent(state)
        }
    }
}
