/// Who observes an entry, and its garbage collection once nobody does.
extension QueryCacheEntry {
    /// Adds an observer (a query or consumer); cancels a pending garbage collection.
    ///
    /// Observers coming and going is not published: no observer shows the count, and publishing it made
    /// releasing n observers of one key cost n² notifications.
    package func addObserver(_ observer: Observer, gcTime: Duration) -> UInt64 {
        let id = state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = observer
            state.snapshot.observerCount = state.observers.count
            state.gcTime = max(state.gcTime ?? gcTime, gcTime)
            return state.nextID
        }
        cancelCollection()
        return id
    }

    /// Turns an observer's `enabled` on or off.
    package func setObserver(_ id: UInt64, isEnabled: Bool) {
        state.withLock { $0.observers[id]?.isEnabled = isEnabled }
    }

    /// Removes an observer; the last one to leave starts garbage collection (after any fetch in flight).
    package func removeObserver(_ id: UInt64) {
        let needsCollection = state.withLock { state -> Bool in
            guard state.observers.removeValue(forKey: id) != nil else { return false }
            state.snapshot.observerCount = state.observers.count
            return state.observers.isEmpty && state.inFlight == nil
        }
        if needsCollection { scheduleCollection() }
    }

    /// Refetches through the first enabled observer that can fetch (the others join its fetch). An entry
    /// observed only by consumers, or without observers when `includingInactive`, refetches with the last
    /// request made for it, if any.
    package func refetch(reason: FetchReason, includingInactive: Bool) {
        let (refetch, isActive, lastRequest) = state.withLock { state in
            let enabled = state.observers.values.filter(\.isEnabled)
            return (enabled.lazy.compactMap(\.refetch).first, !enabled.isEmpty, state.lastRequest?.value)
        }
        if let refetch {
            refetch(reason)
        } else if isActive || includingInactive, var request = lastRequest {
            request.reason = reason
            request.cancelsInFlight = false
            beginFetch(request)
        }
    }

    /// Asks each observer that takes requests of `request`'s type to refetch with it.
    package func refetch(withRequest request: any Sendable) {
        let observers = state.withLock { state in state.observers.values.compactMap(\.refetchWithRequest) }
        for refetch in observers {
            _ = refetch(request)
        }
    }

    func scheduleCollection() {
        let (generation, delay, isRemoved) = state.withLock { state in
            state.gcGeneration += 1
            return (state.gcGeneration, state.gcTime ?? context.defaultGCTime, state.isRemoved)
        }
        guard !isRemoved else { return }
        let timer = context.scheduler.schedule(after: delay) { [weak self] in
            self?.collectIfUnused(generation)
        }
        let isStale = state.withLock { state -> Bool in
            guard state.gcGeneration == generation, !state.isRemoved else { return true }
            state.gcTimer = timer
            return false
        }
        if isStale { timer.cancel() }
    }

    func cancelCollection() {
        let timer = state.withLock { state -> (any Cancellable)? in
            state.gcGeneration += 1
            defer { state.gcTimer = nil }
            return state.gcTimer
        }
        timer?.cancel()
    }

    private func collectIfUnused(_ generation: UInt64) {
        let isUnused = state.withLock { state in
            state.gcGeneration == generation && state.observers.isEmpty && state.inFlight == nil && !state.isRemoved
        }
        if isUnused { context.collect(self) }
    }
}
