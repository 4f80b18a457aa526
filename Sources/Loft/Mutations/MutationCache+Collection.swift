/// Collection: settled calls removed `gcTime` after they settled, or sooner past the memory budget's
/// `mutationCalls` (the oldest settled first), by one timer of the client's timer queue.
extension MutationCache {
    /// Removes the settled calls that are due, then sets the collector for the next.
    func collectDue() {
        let now = context.now
        let due = state.withLock { state -> [MutationCallRecord] in
            state.collectorSetFor = nil
            var due: [MutationCallRecord] = []
            while let first = state.removals.min, first.instant <= now {
                _ = state.removals.popMin()
                if let record = state.records[first.id] { due.append(record) }
            }
            return due
        }
        collect(due)
        setCollector()
    }

    /// The settled calls past the budget, earliest removal first (the oldest settled), taken off the removals.
    static func overflow(of state: inout State, _ keepsSettled: Int?) -> [MutationCallRecord] {
        guard let keepsSettled, state.removals.count > keepsSettled else { return [] }
        var due: [MutationCallRecord] = []
        while state.removals.count > keepsSettled, let first = state.removals.popMin() {
            if let record = state.records[first.id] { due.append(record) }
        }
        return due
    }

    /// Sends `collected` to each record: the machine collects only a settled call (and it then leaves the
    /// table, as its `publish(.removed)` is performed).
    func collect(_ records: [MutationCallRecord]) {
        for record in records { send(.collected, to: record) }
    }

    /// Sets the collector's timer for the earliest removal (or cancels it when there is none), unless it is set
    /// for it already; the last thread to set it leaves it right.
    func setCollector() {
        var target = state.withLock { state -> SchedulerInstant?? in
            let earliest = state.isClosed ? nil : state.removals.min?.instant
            return earliest == state.collectorSetFor ? .none : .some(earliest)
        }
        while case .some(let instant) = target {
            // Held strongly while the timer is set; `close()` cancels it when the client goes.
            context.timers.set(collector, at: instant) { self.collectDue() }
            target = state.withLock { state -> SchedulerInstant?? in
                state.collectorSetFor = instant
                let earliest = state.isClosed ? nil : state.removals.min?.instant
                return earliest == instant ? .none : .some(earliest)
            }
        }
    }

    /// The client is gone: the collector's timer, which holds this cache, is cancelled and not set again.
    package func close() {
        state.withLock { $0.isClosed = true }
        setCollector()
    }
}
