/// Fetching: answering from the cache, joining, starting, replacing, finishing and cancelling a fetch.
extension EntryStateMachine {
    /// Decides what a fetch request does, then does it: answer from the cache, ask the persistent cache, join
    /// the fetch in flight, replace it, start one (paused when the network mode does not let it start offline),
    /// or nothing. A read that brings no fetcher (`EntryEvent.readRequested`) and must start, replace or ask
    /// the store changes nothing, and says so (`Output.needsFetcher`): the decision is made before any change.
    mutating func request(
        _ call: FetchCall, fetcher: (any ErasedFetcher)?, _ intent: FetchIntent, observer: UInt64?,
        waiter: EntryWaiter?, at now: SchedulerInstant, _ conditions: ClientEnvironment.Conditions,
        _ output: inout Output
    ) {
        var call = call
        let route = route(&call, intent, observer: observer, at: now, conditions)
        if fetcher == nil, route.needsFetcher { return output.needsFetcher = true }
        let request = fetcher.map { FetchRequest(fetcher: $0, call: call) }
        go(route, call: call, request: request, intent, observer: observer, waiter: waiter, conditions, &output)
    }

    /// What `request` does, decided before anything changes.
    enum RequestRoute: Equatable {
        /// Answer a read from the cache (`served` from the cache).
        case serve
        /// Answer at once, with the data or as a disabled query: no fetch.
        case answer
        /// Ask the persistent cache first (`.useInsteadOfFetching`).
        case checkStore
        case join
        /// Cancel the fetch in flight and start another (an explicit refetch of an entry with data).
        case replace
        case start

        /// Whether the route runs the fetcher: it cannot be taken by a request that brought none.
        var needsFetcher: Bool { self == .checkStore || self == .replace || self == .start }
        /// Whether a read on this route is answered by a fetch (`served`, not from the cache).
        var isServedByFetch: Bool { self == .join || self == .replace || self == .start }
    }

    /// The route of a request, with the reason it fetches for (`call.reason`, which a trigger or a first use
    /// changes). Reads the machine only.
    func route(
        _ call: inout FetchCall, _ intent: FetchIntent, observer: UInt64?, at now: SchedulerInstant,
        _ conditions: ClientEnvironment.Conditions
    ) -> RequestRoute {
        let hasData = snapshot.data != nil
        switch intent {
        case .explicit, .trigger:
            break
        case .ifStale(let staleTime):
            if hasData, !Staleness.isStale(snapshot, judgedBy: staleTime, at: now) { return .serve }
        case .ifMissing:
            if hasData { return .serve }
        case .appear(let staleTime, let trigger):
            guard isEnabled(observer) else { return .answer }
            if hasData {
                let refreshesRestored =
                    snapshot.isRestored && persistence?.config.usagePolicy == .useAndThenFetch
                let refetches = Staleness.refetches(trigger, judgedBy: staleTime, snapshot, at: now)
                guard refreshesRestored || refetches else { return .answer }
            }
            call.reason = .appear
        case .interval(let inBackground):
            guard isEnabled(observer), conditions.isFocused || inBackground else { return .answer }
            call.reason = .interval
        }
        if !hasData, call.reason == .manual || call.reason == .appear { call.reason = .firstUse }
        if let persistence = persistence, persistence.config.usagePolicy == .useInsteadOfFetching,
            !call.hasCheckedStore, call.reason != .invalidation, !snapshot.isInvalidated
        {
            return .checkStore
        }
        guard isFetching else { return .start }
        if case .explicit = intent, hasData { return .replace }
        return .join
    }

    /// Does what `route` decided. `request` is nil only on the routes that need no fetcher.
    private mutating func go(
        _ route: RequestRoute, call: FetchCall, request: FetchRequest?, _ intent: FetchIntent, observer: UInt64?,
        waiter: EntryWaiter?, _ conditions: ClientEnvironment.Conditions, _ output: inout Output
    ) {
        if !keepsGCTime(call.gcTime), let gcTime = call.gcTime {
            // A caller's gcTime counts as an observer's: the longest told wins (the first replaces the defaults').
            observerGCTime = gcTime
            collectionDeadline = nil
        }
        if intent.isRead, route.isServedByFetch { output.actions.append(.emit(.served(output.key, fromCache: false))) }
        switch (route, request) {
        case (.serve, _):
            serve(waiter, fromCache: true, &output)
        case (.answer, _):
            answer(waiter, &output)
        case (.checkStore, let request?):
            guard let persistence else { return }
            output.actions.append(.checkStore(request, intent, observer: observer, waiter: waiter, persistence))
        case (.join, _):
            // Mutated in place: copying the fetch would copy every waiter on each join.
            if let waiter { fetchWaiters.append(waiter) }
        case (.replace, let request?):
            if let waiter { fetchWaiters.append(waiter) }
            guard let current = fetch else { return }
            if let task = current.task { output.actions.append(.cancelTask(task)) }
            start(request, before: current.before, conditions, &output)
        case (.start, let request?):
            if let waiter { fetchWaiters = [waiter] } else { clearFetchWaiters() }
            start(request, before: Boxed(snapshot), conditions, &output)
        case (.checkStore, nil), (.replace, nil), (.start, nil):
            break  // `request` asked for the fetcher before calling
        }
    }

    /// The answer of the persistent cache under `.useInsteadOfFetching`: a valid stored value answers (restored
    /// into an empty entry first); else the request goes on to the fetcher.
    mutating func storeChecked(
        _ request: FetchRequest, _ intent: FetchIntent, _ observer: UInt64?, _ waiter: EntryWaiter?,
        _ isValid: Bool, _ stored: CachedValue<any Sendable>?, at now: SchedulerInstant,
        _ conditions: ClientEnvironment.Conditions, _ output: inout Output
    ) {
        if isValid {
            if let stored {
                // A stored value with a version (a shared store's row) replaces older data: another instance
                // wrote it since. Without one, it only fills an empty entry.
                let mode: EntryEvent.WriteMode = stored.version == nil ? .ifMissing : .always
                setData(stored.value, stored.savedAt, mode, .restored(version: stored.version), nil, nil, &output)
            }
            if snapshot.data != nil {
                return intent.isRead ? serve(waiter, fromCache: true, &output) : answer(waiter, &output)
            }
        }
        var call = request.call
        call.hasCheckedStore = true
        self.request(
            call, fetcher: request.fetcher, intent, observer: observer, waiter: waiter, at: now, conditions, &output)
    }

    private mutating func start(
        _ request: FetchRequest, before: Boxed<EntrySnapshot>?, _ conditions: ClientEnvironment.Conditions,
        _ output: inout Output
    ) {
        nextFetchID += 1
        // The fetcher a later refetch of an entry without an observer that can fetch runs again: the last one
        // started (a caller who joins a fetch in flight does not replace it).
        lastFetcher = request.fetcher
        fetch = Fetch(id: nextFetchID, request: request, before: before)
        let mayStart = request.networkMode.allowsFirstAttempt(isOnline: conditions.isOnline)
        snapshot.fetchStatus = mayStart ? .fetching : .paused
        snapshot.failureCount = 0
        snapshot.fetchMeta = request.meta
        if snapshot.data == nil {
            // An errored entry with no data that refetches is pending again, with no error (TanStack).
            snapshot.status = .pending
            snapshot.error = nil
        }
        changed()
        output.actions.append(.emit(.fetchStarted(output.key, reason: request.reason)))
        output.actions.append(.startFetch(id: nextFetchID, request))
    }

    /// A caller waits for the fetch in flight, if any, to settle; with none it is answered at once, and so it is,
    /// with `skipsPaused`, while the fetch waits paused for the network (TanStack's awaited `refetchQueries`).
    mutating func join(_ waiter: EntryWaiter, skipsPaused: Bool, _ output: inout Output) {
        guard isFetching, !(skipsPaused && snapshot.fetchStatus == .paused) else { return answer(waiter, &output) }
        fetchWaiters.append(waiter)
    }

    /// Answers a read (`FetchIntent.isRead`) from the cache, and says so (`served`).
    private func serve(_ waiter: EntryWaiter?, fromCache: Bool, _ output: inout Output) {
        output.actions.append(.emit(.served(output.key, fromCache: fromCache)))
        answer(waiter, &output)
    }

    /// Answers a waiter whose request needs no fetch: with the data, or, with none, as a disabled query.
    func answer(_ waiter: EntryWaiter?, _ output: inout Output) {
        guard let waiter else { return }
        let result: Result<any Sendable, any Error> =
            if let data = snapshot.data { .success(data) } else { .failure(QueryError.disabled(key: output.key)) }
        output.actions.append(.resume([waiter], result))
    }

    private func isEnabled(_ observer: UInt64?) -> Bool {
        guard let observer else { return true }
        return observers[observer]?.isEnabled ?? false
    }

    mutating func taskCreated(_ id: UInt64, _ task: TrackedTask<Void>, _ retryer: Retryer, _ output: inout Output) {
        guard fetchID == id else { return output.actions.append(.cancelTask(task)) }
        let isRetryCancelled = updateFetch { fetch in
            fetch.task = task
            fetch.retryer = retryer
            return fetch.isRetryCancelled
        }
        if isRetryCancelled == true { output.actions.append(.cancelRetry(retryer)) }
    }

    mutating func succeed(
        _ id: UInt64, _ value: any Sendable, _ comparison: EntryEvent.Comparison?, at now: SchedulerInstant,
        _ output: inout Output
    ) {
        guard fetchID == id, let (_, waiters) = takeFetch() else { return }
        let wasSuccess = snapshot.status == .success
        let isChanged = snapshot.write(value, updatedAt: now, comparison: comparison, isRestored: false)
        snapshot.failureCount = 0
        snapshot.fetchStatus = .idle
        snapshot.fetchMeta = nil
        changed()
        let data = snapshot.data ?? value
        if !waiters.isEmpty { output.actions.append(.resume(waiters, .success(data))) }
        if isChanged || !wasSuccess { output.actions.append(.emit(.updated(output.key))) }
        if let persistence = persistence { output.actions.append(.save(value, at: now, persistence)) }
        output.actions.append(.emit(.fetchFinished(output.key, error: nil)))
    }

    mutating func fail(
        _ id: UInt64, _ error: any Error, _ failureCount: Int, at now: SchedulerInstant, _ output: inout Output
    ) {
        guard fetchID == id else { return }
        if snapshot.data == nil, let persistence = persistence,
            persistence.config.usagePolicy == .useIfFetchFails
        {
            return output.actions.append(.loadFallback(fetch: id, error, failureCount: failureCount, persistence))
        }
        finishFailure(error, failureCount, fallback: nil, at: now, &output)
    }

    /// A failed fetch keeps the data it had (or shows the stored fallback), records the error and marks the
    /// entry invalidated, so the next trigger refetches whatever `staleTime` says.
    mutating func finishFailure(
        _ error: any Error, _ failureCount: Int, fallback: CachedValue<any Sendable>?, at now: SchedulerInstant,
        _ output: inout Output
    ) {
        guard let (_, waiters) = takeFetch() else { return }
        snapshot.error = error
        snapshot.status = .error
        snapshot.failureCount = failureCount
        snapshot.isInvalidated = true
        snapshot.fetchStatus = .idle
        snapshot.fetchMeta = nil
        var isRestored = false
        if snapshot.data == nil, let fallback {
            snapshot.replaceData(with: fallback.value)
            snapshot.dataUpdatedAt = fallback.savedAt
            snapshot.isRestored = true
            isRestored = true
        }
        changed()
        // `.useIfFetchFails`: the callers get the stored value instead of the error.
        let fallsBack = persistence?.config.usagePolicy == .useIfFetchFails
        let answer: Result<any Sendable, any Error> =
            (fallsBack ? snapshot.data : nil).map { .success($0) } ?? .failure(error)
        if !waiters.isEmpty { output.actions.append(.resume(waiters, answer)) }
        output.actions.append(.emit(.updated(output.key)))
        if isRestored { output.actions.append(.emit(.restored(output.key))) }
        output.actions.append(.emit(.fetchFinished(output.key, error: error)))
    }

    /// Cancels the fetch in flight. With `revert`, the state from before the fetch comes back unless data was
    /// written meanwhile (then that data stays). Without it, the state the fetch reached stays, but an entry
    /// with no data keeps the error it had before the fetch (a failed query stays failed, not pending as if
    /// never fetched). The waiters get `QueryError.cancelled`.
    mutating func cancel(revert: Bool, _ output: inout Output) {
        guard let (cancelled, waiters) = takeFetch() else { return }
        if revert, let before = cancelled.before?.value {
            snapshot.restore(before)
        } else if !revert, snapshot.data == nil, let error = cancelled.before?.value.error {
            snapshot.error = error
            snapshot.status = .error
        }
        snapshot.fetchStatus = .idle
        snapshot.fetchMeta = nil
        changed()
        if let task = cancelled.task { output.actions.append(.cancelTask(task)) }
        let error = QueryError.cancelled(key: output.key)
        if !waiters.isEmpty { output.actions.append(.resume(waiters, .failure(error))) }
        output.actions.append(.emit(.fetchFinished(output.key, error: error)))
    }
}

extension EntryStateMachine {
    /// The fetch in flight (`fetchBox`).
    struct Fetch: Sendable {
        let id: UInt64
        var request: FetchRequest
        /// The state to restore on cancel; nil once data was written during the fetch (that data then stays).
        var before: Boxed<EntrySnapshot>?
        var task: TrackedTask<Void>?
        var retryer: Retryer?
        /// The last observer left: no attempt after the one in flight.
        var isRetryCancelled = false
    }

    /// What an entry keeps of its store (`storeBox`): the persistence it adopted, and its data's version there.
    struct EntryStore: Sendable {
        var persistence: EntryPersistence?
        var version: Int64?
    }
}
