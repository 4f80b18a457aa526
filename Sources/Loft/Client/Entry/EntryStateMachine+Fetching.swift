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
        guard let route = route(&call, intent, fetcher: fetcher, observer: observer, at: now, conditions) else {
            return output.needsFetcher = true
        }
        go(route, call: call, intent, observer: observer, waiter: waiter, conditions, &output)
    }

    /// What `request` does, decided before anything changes. The routes that run the fetcher carry the request
    /// to run it with, so that a route is only ever taken with what it needs.
    enum RequestRoute {
        /// Answer a read from the cache (`served` from the cache).
        case serve
        /// Answer at once, with the data or as a disabled query: no fetch.
        case answer
        /// Ask the persistent cache first (`.useInsteadOfFetching`), then go on with the request.
        case checkStore(FetchRequest, EntryPersistence)
        case join
        /// Cancel the fetch in flight (`replacing`) and start another (an explicit refetch of an entry with data).
        case replace(FetchRequest, replacing: Fetch)
        case start(FetchRequest)

        /// Whether a read on this route is answered by a fetch (`served`, not from the cache).
        var isServedByFetch: Bool {
            switch self {
            case .join, .replace, .start: true
            case .serve, .answer, .checkStore: false
            }
        }
    }

    /// The route of a request, with the reason it fetches for (`call.reason`, which a trigger or a first use
    /// changes); nil when the route runs the fetcher and the request brought none (a read, which then asks for
    /// it: `Output.needsFetcher`). Reads the machine only.
    func route(
        _ call: inout FetchCall, _ intent: FetchIntent, fetcher: (any ErasedFetcher)?, observer: UInt64?,
        at now: SchedulerInstant, _ conditions: ClientEnvironment.Conditions
    ) -> RequestRoute? {
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
        // The reason is settled: what a fetch would run with.
        let request = fetcher.map { FetchRequest(fetcher: $0, call: call) }
        if let persistence = persistence, persistence.config.usagePolicy == .useInsteadOfFetching,
            !call.hasCheckedStore, call.reason != .invalidation, !snapshot.isInvalidated
        {
            return request.map { .checkStore($0, persistence) }
        }
        guard isFetching else { return request.map { .start($0) } }
        // The fetch in flight is copied out of its box only to be replaced: a join reads no more than the flag.
        if case .explicit = intent, hasData, let current = fetch {
            return request.map { .replace($0, replacing: current) }
        }
        return .join
    }

    /// Does what `route` decided.
    private mutating func go(
        _ route: RequestRoute, call: FetchCall, _ intent: FetchIntent, observer: UInt64?, waiter: EntryWaiter?,
        _ conditions: ClientEnvironment.Conditions, _ output: inout Output
    ) {
        if !keepsGCTime(call.gcTime), let gcTime = call.gcTime {
            // A caller's gcTime counts as an observer's: the longest told wins (the first replaces the defaults').
            observerGCTime = gcTime
            collectionDeadline = nil
        }
        if intent.isRead, route.isServedByFetch { output.actions.append(.emit(.served(output.key, fromCache: false))) }
        switch route {
        case .serve:
            serve(waiter, fromCache: true, &output)
        case .answer:
            answer(waiter, &output)
        case .checkStore(let request, let persistence):
            output.actions.append(.checkStore(request, intent, observer: observer, waiter: waiter, persistence))
        case .join:
            // Mutated in place: copying the fetch would copy every waiter on each join.
            if let waiter { fetchWaiters.append(waiter) }
        case .replace(let request, let current):
            if let waiter { fetchWaiters.append(waiter) }
            if let task = current.task { output.actions.append(.cancelTask(task)) }
            start(request, before: current.before, conditions, &output)
        case .start(let request):
            if let waiter { fetchWaiters = [waiter] } else { clearFetchWaiters() }
            start(request, before: Boxed(snapshot), conditions, &output)
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
