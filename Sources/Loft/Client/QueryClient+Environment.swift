extension QueryClient {
    /// Whether the app is focused, as last told by `setFocused(_:)` (true until told otherwise).
    public var isFocused: Bool {
        context.environment.conditions.isFocused
    }

    /// Whether the network is online, as last told by `setOnline(_:)` (true until told otherwise).
    public var isOnline: Bool {
        context.environment.conditions.isOnline
    }

    /// Tells the client whether the app is focused (in the foreground).
    ///
    /// **Behavior**
    /// - Regaining focus refetches every entry with an enabled query whose `refetchOnFocus` says so for the
    ///   staleness it sees (`.ifStale` by default), joining a fetch in flight; the fetch records `.focus`.
    /// - Then retries that came due while unfocused continue (a trigger joined them first: one request each);
    ///   polling without `refetchIntervalInBackground` resumes.
    /// - Telling the client what it knows already does nothing.
    public func setFocused(_ isFocused: Bool) {
        context.environment.update({ $0.isFocused = isFocused }) { previous in
            guard isFocused, !previous.isFocused else { return }
            trigger(.focus)
        }
    }

    /// Tells the client whether the network is online.
    ///
    /// **Behavior**
    /// - Going offline pauses what `NetworkMode` says: fetches that would start (`.online`) and retries that
    ///   come due (`.online`, `.offlineFirst`) wait with `FetchStatus.paused`.
    /// - Coming back online refetches every entry with an enabled query whose `refetchOnReconnect` says so
    ///   (`.ifStale` by default; `.never` under `networkMode` `.always`), joining a fetch in flight (a paused one
    ///   included: it makes one request, not two); the fetch records `.reconnect`. Then the paused fetches go on.
    /// - When mutation calls were paused (offline, or behind them in their scope), they go on first, and the
    ///   reconnect refetch and the paused fetches wait until every one of them settled (TanStack's order): a
    ///   query refetched on reconnect sees what the resumed mutations changed on the server.
    /// - Telling the client what it knows already does nothing.
    public func setOnline(_ isOnline: Bool) {
        let paused = isOnline && !self.isOnline ? mutationCache.pausedCalls() : []
        guard !paused.isEmpty else {
            context.environment.update({ $0.isOnline = isOnline }) { previous in
                guard isOnline, !previous.isOnline else { return }
                trigger(.reconnect)
            }
            return
        }
        context.environment.update {
            $0.isOnline = true
            $0.isSettlingMutations = true
        }
        mutationCache.whenSettled(paused) { [weak self] in self?.resumedMutationsSettled() }
    }

    /// The mutation calls paused when the network came back settled: the reconnect refetch runs, then the
    /// paused fetches go on.
    private func resumedMutationsSettled() {
        context.environment.update({ $0.isSettlingMutations = false }) { previous in
            guard previous.isSettlingMutations, isOnline else { return }
            trigger(.reconnect)
        }
    }

    /// Sends `trigger` to every entry it may refetch. Called before the fetches paused for the focus or the
    /// network go on: an entry whose paused fetch is still in flight joins it, so each paused fetch makes one
    /// request however the threads interleave.
    private func trigger(_ trigger: ObserverTally.Trigger) {
        let (now, conditions) = (scheduler.now, context.environment.conditions)
        let event: EntryEvent = trigger == .focus ? .focusRegained : .reconnected
        FetchStartBatch.run {
            for entry in entries(refetchingOn: trigger, at: now) { entry.send(event, at: now, conditions: conditions) }
        }
    }

    /// The entries that `trigger` may refetch at `now`: one atomic read each, under the client's lock; the
    /// rest pay nothing more (10,000 entries of which 100 are stale cost 100 events, not 10,000).
    ///
    /// The array is allocated once at its size (`EntryTable.filter`, which counts first): growing it by doubling
    /// would make an allocation of a kilobyte or more, for which the C allocator first merges every small block
    /// freed since the last one, a cost that has nothing to do with the work.
    private func entries(refetchingOn trigger: ObserverTally.Trigger, at now: SchedulerInstant) -> [QueryCacheEntry] {
        let moment = TriggerMirror.Moment(now)
        return state.withLock { state in state.entries.filter { $0.mayRefetch(on: trigger, at: moment) } }
    }
}
