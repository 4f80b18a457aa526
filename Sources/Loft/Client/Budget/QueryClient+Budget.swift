extension QueryClient {
    /// A read used `entry`: under a memory budget, an idle one becomes the most recently used.
    @usableFromInline
    package func noteUse(of entry: QueryCacheEntry) {
        context.ledger?.touch(entry)
    }

    /// The memory budget the client was made with, if any.
    public var memoryBudget: MemoryBudget? {
        context.ledger?.budget
    }

    /// What the client's entries cost together now, in its budget's unit (entries, without a budget).
    public var memoryUsage: Int {
        context.ledger?.total ?? state.withLock { $0.entries.count }
    }

    /// Evicts entries that nobody observes and that are not fetching until what the client holds costs at most
    /// `limit` (in its budget's unit; entries without a budget); each is an `evicted` event with `.trim`.
    ///
    /// With a budget, the least recently used go first; without one, the order of use is not tracked, and the
    /// entries whose data is oldest go first. `trim(to: 0)` drops every unobserved, idle entry. Observed and
    /// fetching entries stay whatever `limit` says. A persistent cache keeps what is evicted.
    ///
    /// - Returns: how many entries were evicted.
    @discardableResult
    public func trim(to limit: Int) -> Int {
        trim(to: limit, reason: .trim)
    }

    /// `trim(to:)`, each eviction said with `reason`.
    func trim(to limit: Int, reason: EvictionReason) -> Int {
        let limit = max(0, limit)
        var evicted = 0
        if let ledger = context.ledger {
            while case .evict(let entry) = ledger.nextStep(towards: limit, reportsOver: false) {
                if Self.evict(entry, for: reason) { evicted += 1 }
            }
            return evicted
        }
        let entries = allEntries
        var count = entries.count
        guard count > limit else { return 0 }
        let oldestFirst = entries.map { ($0, $0.snapshot.dataUpdatedAt) }.sorted { lhs, rhs in
            switch (lhs.1, rhs.1) {
            case (let left?, let right?): left < right
            case (nil, _?): true
            default: false
            }
        }
        for (entry, _) in oldestFirst where count > limit && Self.evict(entry, for: reason) {
            evicted += 1
            count -= 1
        }
        return evicted
    }

    /// Asks `entry` to be evicted; true when it was (an observed or fetching entry refuses).
    private static func evict(_ entry: QueryCacheEntry, for reason: EvictionReason) -> Bool {
        entry.send(.evictionRequested(reason)).actions.contains(.evict(reason))
    }
}
