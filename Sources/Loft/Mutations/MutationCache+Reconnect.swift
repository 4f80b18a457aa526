import Synchronization

/// Reconnecting: when the network comes back, the client resumes the calls that were paused and runs what
/// waits for them (the queries' refetch) once they all settled; a call's `finish` takes it off the list.
extension MutationCache {
    /// The pending calls that are paused (for the network or for their scope's turn).
    func pausedCalls() -> [UInt64] {
        let records = state.withLock { Array($0.records.values) }
        return records.filter { $0.machine.isPaused }.map(\.id)
    }

    /// Runs `then` once every call of `ids` settled (at once when none is pending); calls added while an
    /// earlier set is settling join it, and `then` replaces the earlier one.
    func whenSettled(_ ids: [UInt64], then: @escaping @Sendable () -> Void) {
        let records = state.withLock { state -> [MutationCallRecord] in
            let records = ids.compactMap { state.records[$0] }
            state.reconnecting.formUnion(records.map(\.id))
            state.afterReconnecting = then
            isReconnecting.store(true, ordering: .releasing)
            return records
        }
        guard !records.isEmpty else {
            settledWhileReconnecting(nil)
            return
        }
        // A call that settled before it was listed here did not see it listed: it is checked again now.
        for record in records where record.machine.status != .pending { settledWhileReconnecting(record.id) }
    }

    /// Takes a settled call off the calls reconnecting (nil: none); runs what waits for them after the last.
    func settledWhileReconnecting(_ id: UInt64?) {
        guard isReconnecting.load(ordering: .acquiring) else { return }
        let then = state.withLock { state -> (@Sendable () -> Void)? in
            if let id { state.reconnecting.remove(id) }
            guard state.reconnecting.isEmpty else { return nil }
            isReconnecting.store(false, ordering: .releasing)
            return state.afterReconnecting.take()
        }
        then?()
    }
}
