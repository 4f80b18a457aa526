/// What the entry tells the client's memory budget: turning idle or busy (in the event's lock hold, so the
/// ledger's list follows the machine's order of events), and the cost of new data (measured outside the lock).
extension QueryCacheEntry {
    /// What an event means for the client's memory budget, found in the event's lock hold.
    struct BudgetNote {
        /// The entry's new data, to be costed outside the lock, with its version.
        var measure: (data: (any Sendable)?, version: UInt64)?
        /// The client is over its budget and an entry may be evicted.
        var isOver = false
    }

    /// Tells the ledger, in the event's lock hold, that the entry turned idle or busy; notes new data to cost.
    func report(to ledger: MemoryLedger, _ storage: inout Storage, dataVersionBefore: UInt64) -> BudgetNote {
        var note = BudgetNote()
        let isIdle = storage.machine.isIdle
        if isIdle != storage.reportedIdle {
            storage.reportedIdle = isIdle
            note.isOver = ledger.setIdle(self, isIdle)
        }
        let snapshot = storage.machine.snapshot
        if !ledger.budget.countsEntries, snapshot.dataVersion != dataVersionBefore {
            note.measure = (snapshot.data, snapshot.dataVersion)
        }
        return note
    }

    /// Costs the new data outside the lock (the cost is a user closure), and evicts while over the budget.
    func settle(_ note: BudgetNote, with ledger: MemoryLedger) {
        var isOver = note.isOver
        if let measure = note.measure,
            ledger.setCost(self, ledger.budget.cost(of: measure.data), version: measure.version)
        {
            isOver = true
        }
        if isOver { context.enforceBudget() }
    }
}
