/// Observers, written data and the bulk operations and triggers that act on an entry.
extension EntryStateMachine {
    // MARK: - Observers

    /// Observers coming and going publish nothing: no observer shows the count, and publishing it made
    /// releasing n observers of one key cost n² notifications.
    mutating func addObserver(_ id: UInt64, _ observer: EntryObserver, _ output: inout Output) {
        let wasUnobserved = observers.isEmpty
        observers[id] = observer
        tally.count(observer, 1)
        snapshot.observerCount = observers.count
        judgeFreshness()
        observerGCTime = max(observerGCTime ?? observer.gcTime, observer.gcTime)
        if initialData == nil { initialData = observer.initialData }
        if wasUnobserved, fetch?.isRetryCancelled == true {
            let retryer = updateFetch { fetch in
                fetch.isRetryCancelled = false
                return fetch.retryer
            }
            if let retryer = retryer ?? nil { output.actions.append(.continueRetry(retryer)) }
        }
    }

    /// The last observer leaving stops the retries of the fetch in flight (the attempt running may finish and
    /// is cached); a paused first fetch, or one whose fetcher reacts to cancellation, is cancelled instead.
    mutating func removeObserver(_ id: UInt64, _ output: inout Output) {
        guard let removed = observers.removeValue(forKey: id) else { return }
        tally.count(removed, -1)
        snapshot.observerCount = observers.count
        judgeFreshness()
        guard observers.isEmpty, let running = fetch else { return }
        let isPausedFirstFetch = snapshot.fetchStatus == .paused && snapshot.data == nil
        if isPausedFirstFetch || running.request.cancelsWhenUnobserved {
            cancel(revert: true, &output)
        } else {
            updateFetch { $0.isRetryCancelled = true }
            if let retryer = running.retryer { output.actions.append(.cancelRetry(retryer)) }
        }
    }

    /// An observer's options changed.
    mutating func changeObserver(_ id: UInt64, _ observer: EntryObserver) {
        guard let old = observers.updateValue(observer, forKey: id) else { return }
        observerGCTime = max(observerGCTime ?? observer.gcTime, observer.gcTime)
        tally.count(old, -1)
        tally.count(observer, 1)
        judgeFreshness()
    }

    /// Keeps the snapshot's `staleTime` the tally's: observers coming and going publish only when it moves,
    /// since the consumers that inherit it then see another staleness.
    private mutating func judgeFreshness() {
        if snapshot.judge(by: tally.staleTime) { changed() }
    }

    // MARK: - Data

    /// Writes data (a `setQueryData`, initial data, hydration, a restored value). Data written while a fetch
    /// runs survives a cancel of that fetch.
    mutating func setData(
        _ value: any Sendable, _ updatedAt: SchedulerInstant, _ mode: EntryEvent.WriteMode,
        _ origin: EntryEvent.DataOrigin,
        _ comparison: EntryEvent.Comparison?, _ expected: UInt64?, _ output: inout Output
    ) {
        if let expected, expected != snapshot.dataVersion { return }
        if let version = origin.version, let held = storeVersion, held >= version { return }
        if case .shared = origin, comparison?.holds(for: snapshot) == true {
            // Another client's value equal to the data (its copy of what this one holds) is no news: the data
            // keeps its age and its invalidation, and takes the version.
            output.isStored = true
            if let version = origin.version { storeVersion = version }
            return
        }
        switch mode {
        case .always:
            break
        case .ifMissing:
            guard snapshot.data == nil else { return }
        case .ifNewer:
            if snapshot.data != nil, let current = snapshot.dataUpdatedAt, current >= updatedAt { return }
        }
        output.isStored = true
        if let version = origin.version { storeVersion = version }
        output.isChanged = snapshot.write(
            value, updatedAt: updatedAt, comparison: comparison, isRestored: origin.isRestored)
        updateFetch { $0.before = nil }
        changed()
        if output.isChanged { output.actions.append(.emit(.updated(output.key))) }
        if origin.isRestored {
            output.actions.append(.emit(.restored(output.key)))
        } else if let persistence = persistence, origin == .local || !persistence.isAwaited {
            output.actions.append(.save(value, at: updatedAt, persistence))
        }
    }

    /// Back to the initial state: the initial data of an observer that has some, else nothing; a fetch in
    /// flight is cancelled.
    mutating func reset(at now: SchedulerInstant, _ conditions: ClientEnvironment.Conditions, _ output: inout Output) {
        cancel(revert: false, &output)
        snapshot.restore(EntrySnapshot())
        snapshot.dataVersion &+= 1
        if let initial = initialData?.value {
            snapshot.data = initial.value
            snapshot.dataUpdatedAt = initial.updatedAt ?? now
            snapshot.status = .success
        }
        changed()
        output.actions.append(.emit(.updated(output.key)))
        refetch(.manual, activeOnly: true, at: now, conditions, &output)
    }

    // MARK: - Bulk operations and triggers

    /// Marks the entry stale whatever its `staleTime` (unless an observer's is `.static`), then refetches it as
    /// `refetchType` says; a disabled entry is never refetched.
    mutating func invalidate(
        _ refetchType: RefetchType, at now: SchedulerInstant, _ conditions: ClientEnvironment.Conditions,
        _ output: inout Output
    ) {
        guard tally.staticStaleTime == 0 else { return }
        if !snapshot.isInvalidated {
            snapshot.isInvalidated = true
            changed()
        }
        let refetches =
            switch refetchType {
            case .active: isActive
            case .inactive: !isActive
            case .all: true
            case .none: false
            }
        if refetches { refetch(.invalidation, activeOnly: false, at: now, conditions, &output) }
    }

    /// A bulk refetch (`refetchQueries`): every entry that is not disabled refetches, but `.static` data, which
    /// only an explicit `refetch()` of its query refetches.
    mutating func refetchRequested(
        _ reason: FetchReason, at now: SchedulerInstant, _ conditions: ClientEnvironment.Conditions,
        _ output: inout Output
    ) {
        if tally.staticStaleTime > 0, snapshot.data != nil { return }
        refetch(reason, activeOnly: false, at: now, conditions, &output)
    }

    /// Refetches through the first enabled observer that can fetch (the others join its fetch), else with the
    /// fetcher of the last fetch started for the entry (the store asked first, as for an observer), as
    /// `FetchIntent(refetchingFor:)` says for `reason` (an invalidation replaces a fetch in flight). A disabled
    /// entry is left alone; `activeOnly` leaves inactive ones too.
    mutating func refetch(
        _ reason: FetchReason, activeOnly: Bool, at now: SchedulerInstant,
        _ conditions: ClientEnvironment.Conditions, _ output: inout Output
    ) {
        guard !isDisabled, !activeOnly || isActive else { return }
        if let refetch = refetcher(where: { _ in true }) {
            output.actions.append(.refetch(refetch, reason))
        } else if let fetcher = lastFetcher {
            // The last fetcher again, for `reason`: the persistent cache is asked first, as for an observer's
            // refetch, and the `gcTime` the entry keeps was recorded already.
            self.request(
                FetchCall(reason: reason), fetcher: fetcher, FetchIntent(refetchingFor: reason), observer: nil,
                waiter: nil, at: now, conditions, &output)
        }
    }

    /// A mutation's `.newData(request)`: every enabled observer that takes requests refetches with `request`
    /// (one whose request type differs ignores it); a disabled one is never refetched, as by every other bulk
    /// refetch (TanStack's `refetchQueries` skips disabled queries).
    mutating func refetchWithRequest(_ request: any Sendable, _ output: inout Output) {
        let calls = observers.sorted { $0.key < $1.key }.compactMap { id, observer -> ObserverCall<Void>? in
            guard observer.isEnabled, let refetch = observer.refetchWithRequest else { return nil }
            return ObserverCall(observer: id) { _ = refetch(request) }
        }
        if !calls.isEmpty { output.actions.append(.refetchWithRequest(calls)) }
    }

    /// Focus regained (`reason` `.focus`, read against `refetchOnFocus`) or network back (`.reconnect`, against
    /// `refetchOnReconnect`): refetches through an enabled observer whose trigger says so for the staleness it
    /// sees (`.static` data: never); a fetch in flight is joined.
    mutating func refetchOnTrigger(reason: FetchReason, at now: SchedulerInstant, _ output: inout Output) {
        let refetch = refetcher { observer in
            let trigger = reason == .focus ? observer.refetchOnFocus : observer.refetchOnReconnect
            return Staleness.refetches(trigger, judgedBy: observer.staleTime, snapshot, at: now)
        }
        if let refetch { output.actions.append(.refetch(refetch, reason)) }
    }

    /// How the first enabled observer made (the lowest id) that can fetch and passes `predicate` refetches.
    private func refetcher(where predicate: (EntryObserver) -> Bool) -> ObserverCall<FetchReason>? {
        var chosen: ObserverCall<FetchReason>?
        for (id, observer) in observers where observer.isEnabled && id < (chosen?.observer ?? .max) {
            if let refetch = observer.refetch, predicate(observer) { chosen = ObserverCall(observer: id, refetch) }
        }
        return chosen
    }
}
