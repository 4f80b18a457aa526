/// The cache entry of one key: its data, error and statuses, the fetch in flight, the observers, and the
/// garbage-collection timer.
///
/// **Behavior**
/// - One fetch in flight however many callers ask: they all get its result. An explicit refetch of an entry
///   that has data cancels the fetch in flight and starts a new one, and the waiters of the old get the new.
/// - A failed fetch keeps the last good data; the error, its time and the failure count go into the snapshot.
/// - Retries wait on the client's scheduler (virtual time in tests).
/// - Cancelling restores the state from before the fetch; its waiters get `QueryError.cancelled`.
/// - When the last observer leaves, a running fetch is allowed to finish and its result is cached; garbage
///   collection starts `gcTime` after the last observer left or the fetch ended, whichever is later, and an
///   observer that comes back cancels it.
/// - Every change is published in order through `changes`; no lock is held while observers run.
package final class QueryCacheEntry: Sendable {
    package struct Observer: Sendable {
        /// A disabled query does not count as active: invalidation and triggers leave it alone.
        package var isEnabled: Bool
        /// Starts a fetch with the observer's own fetcher and request (invalidation, focus, reconnect); nil for
        /// a consumer, which cannot fetch.
        package var refetch: (@Sendable (FetchReason) -> Void)?
        /// Refetches with another request (a mutation's `.newData(request)`); returns false when the request is
        /// not of the observer's type.
        package var refetchWithRequest: (@Sendable (any Sendable) -> Bool)?

        package init(
            isEnabled: Bool,
            refetch: (@Sendable (FetchReason) -> Void)?,
            refetchWithRequest: (@Sendable (any Sendable) -> Bool)? = nil
        ) {
            self.isEnabled = isEnabled
            self.refetch = refetch
            self.refetchWithRequest = refetchWithRequest
        }
    }

    struct InFlight: Sendable {
        var id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<any Sendable, any Error>] = [:]
        /// The state to restore on cancel; boxed, so that an entry with no fetch in flight does not carry
        /// a second snapshot's worth of empty storage.
        var before: Boxed<EntrySnapshot>
    }

    struct State: Sendable {
        var snapshot = EntrySnapshot()
        var inFlight: InFlight?
        var nextID: UInt64 = 0
        var observers: [UInt64: Observer] = [:]
        /// The longest `gcTime` of the observers so far; the client's default until one says otherwise.
        var gcTime: Duration?
        var gcTimer: (any Cancellable)?
        var gcGeneration: UInt64 = 0
        /// The last fetch started, to refetch an entry that has no observer (`refetchType: .inactive`).
        var lastRequest: Boxed<FetchRequest>?
        var isRemoved = false
        /// Bumped by every change.
        var version: UInt64 = 0
        /// Tests waiting until the fetch in flight has this many waiters.
        var waiterWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// How the data is saved to and restored from a persistent cache, if at all.
        var persistence: Boxed<EntryPersistence>?
        /// Made when someone first asks for `changes`: an entry nobody observes (a `setQueryData`, a prefetch,
        /// a hydrated query) costs no subject.
        var publication: OrderedSubject<UInt64>?
    }

    package let key: QueryKey
    let context: ClientContext
    let state = Locked(State())

    package init(key: QueryKey, context: ClientContext) {
        self.key = key
        self.context = context
    }

    // MARK: - Reading

    package var snapshot: EntrySnapshot {
        state.withLock { $0.snapshot }
    }

    /// The version of the entry after every change, in order; a new subscriber gets the current version first.
    /// Observers read `snapshot` when they need it: with many observers, passing a number is much cheaper than
    /// copying the snapshot to each.
    package var changes: CurrentValueSubject<UInt64, Never> {
        state.withLock { state in
            if let publication = state.publication { return publication.subject }
            let publication = OrderedSubject(state.version)
            state.publication = publication
            return publication.subject
        }
    }

    /// The data alone: a cache-hit read copies nothing else.
    package var data: (any Sendable)? {
        state.withLock { $0.snapshot.data }
    }

    package var isFetching: Bool {
        state.withLock { $0.inFlight != nil }
    }

    // MARK: - Writing

    /// Stores `value` as fresh data (a `setQueryData`, initial data or hydration).
    ///
    /// - Parameters:
    ///   - onlyIfEmpty: stores only when there is no data yet (initial data never overwrites).
    ///   - onlyIfNewer: stores only when there is no data, or older data (hydration never overwrites newer).
    ///   - isRestored: the value comes from the persistent cache (so it is not saved back).
    /// - Returns: whether the data changed.
    @discardableResult
    package func setData(
        _ value: any Sendable, updatedAt: SchedulerInstant, structuralSharing: Bool = true, onlyIfEmpty: Bool = false,
        onlyIfNewer: Bool = false, isRestored: Bool = false
    ) -> Bool {
        var isStored = false
        let changed = mutate { state -> Bool in
            if onlyIfEmpty, state.snapshot.data != nil { return false }
            if onlyIfNewer, state.snapshot.data != nil, let current = state.snapshot.dataUpdatedAt, current >= updatedAt
            {
                return false
            }
            isStored = true
            let isSame = structuralSharing && areEqual(state.snapshot.data, value)
            if !isSame { state.snapshot.data = value }
            state.snapshot.dataUpdatedAt = updatedAt
            state.snapshot.status = .success
            state.snapshot.error = nil
            state.snapshot.isInvalidated = false
            state.snapshot.isRestored = isRestored
            return !isSame
        }
        if changed { context.events.send(.updated(key)) }
        if isStored, !isRestored { persist(value, at: updatedAt) }
        return changed
    }

    /// Marks the entry stale whatever its `staleTime`. Returns whether it has an enabled observer.
    package func invalidate() -> Bool {
        mutate { state in
            state.snapshot.isInvalidated = true
            return state.observers.values.contains { $0.isEnabled }
        }
    }

    /// Back to the initial state: no data, no error; a fetch in flight is cancelled.
    package func reset() {
        cancelFetch()
        mutate { state in
            let observers = state.snapshot.observerCount
            state.snapshot = EntrySnapshot()
            state.snapshot.observerCount = observers
        }
        context.events.send(.updated(key))
    }

    package func markRemoved() {
        let timer = state.withLock { state -> (any Cancellable)? in
            state.isRemoved = true
            defer { state.gcTimer = nil }
            return state.gcTimer
        }
        timer?.cancel()
    }

    /// Returns once at least `count` callers wait on the fetch in flight: a barrier for tests, never a sleep.
    package func waitForWaiters(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isReached = state.withLock { state -> Bool in
                guard (state.inFlight?.waiters.count ?? 0) < count else { return true }
                state.waiterWatchers.append((count, continuation))
                return false
            }
            if isReached { continuation.resume() }
        }
    }

    // MARK: - Fetching

    /// Starts a fetch, or joins the one in flight, without waiting for it.
    package func beginFetch(_ request: FetchRequest) {
        start(request, waiter: nil)
    }

    /// Starts a fetch, or joins the one in flight, and returns its value.
    ///
    /// - Throws: the fetcher's last error once retries are exhausted; `QueryError.cancelled` when the fetch is
    ///   cancelled; `CancellationError` when the calling task is cancelled (the fetch goes on for others).
    package func fetchValue(_ request: FetchRequest) async throws -> any Sendable {
        let waiterID = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                start(request, waiter: (waiterID, continuation))
            }
        } onCancel: {
            let waiter = state.withLock { state in state.inFlight?.waiters.removeValue(forKey: waiterID) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Cancels the fetch in flight, restoring the state from before it. Its waiters get `QueryError.cancelled`.
    package func cancelFetch() {
        var needsCollection = false
        let cancelled = mutate { state -> InFlight? in
            guard let inFlight = state.inFlight else { return nil }
            state.inFlight = nil
            let observers = state.snapshot.observerCount
            state.snapshot = inFlight.before.value
            state.snapshot.observerCount = observers
            state.snapshot.fetchStatus = .idle
            needsCollection = state.observers.isEmpty
            return inFlight
        }
        guard let cancelled else { return }
        cancelled.task?.cancel()
        let error = QueryError.cancelled(key: key)
        for waiter in cancelled.waiters.values { waiter.resume(throwing: error) }
        context.events.send(.fetchFinished(key, error: error))
        if needsCollection { scheduleCollection() }
    }

    private func start(
        _ request: FetchRequest, waiter: (id: UInt64, continuation: CheckedContinuation<any Sendable, any Error>)?
    ) {
        if let stored = servedFromPersistence(request) {
            waiter?.continuation.resume(returning: stored)
            return
        }
        enum Action {
            case joined
            case started(id: UInt64, replacing: Task<Void, Never>?)
        }
        let action = mutate(publishingIf: { if case .started = $0 { true } else { false } }) { state -> Action in
            state.lastRequest = Boxed(request)
            if state.inFlight != nil {
                // Mutated in place: copying the in-flight record would copy every waiter on each join.
                if let waiter { state.inFlight?.waiters[waiter.id] = waiter.continuation }
                guard request.cancelsInFlight, state.snapshot.data != nil, let current = state.inFlight else {
                    return .joined
                }
                state.nextID += 1
                state.inFlight = InFlight(
                    id: state.nextID, waiters: current.waiters, before: current.before)
                state.snapshot.failureCount = 0
                state.snapshot.fetchMeta = request.meta
                return .started(id: state.nextID, replacing: current.task)
            }
            state.nextID += 1
            var inFlight = InFlight(id: state.nextID, before: Boxed(state.snapshot))
            if let waiter { inFlight.waiters[waiter.id] = waiter.continuation }
            state.inFlight = inFlight
            state.snapshot.fetchStatus = .fetching
            state.snapshot.failureCount = 0
            state.snapshot.fetchMeta = request.meta
            return .started(id: state.nextID, replacing: nil)
        }
        if waiter != nil { resumeWaiterWatchers() }
        guard case .started(let id, let replaced) = action else { return }
        replaced?.cancel()
        cancelCollection()
        context.events.send(.fetchStarted(key, reason: request.reason))
        let task = context.tracker.spawn { [self] in await run(id, request) }
        let isCurrent = state.withLock { state -> Bool in
            guard state.inFlight?.id == id else { return false }
            state.inFlight?.task = task
            return true
        }
        // Cancelled (or replaced) before the task was recorded: cancel it now.
        if !isCurrent { task.cancel() }
    }

    private func resumeWaiterWatchers() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let waiting = state.inFlight?.waiters.count ?? 0
            let ready = state.waiterWatchers.filter { $0.count <= waiting }.map(\.continuation)
            state.waiterWatchers.removeAll { $0.count <= waiting }
            return ready
        }
        for watcher in ready { watcher.resume() }
    }

    private func run(_ id: UInt64, _ request: FetchRequest) async {
        var failures = 0
        while true {
            do {
                let value = try await request.fetch()
                finish(id, .success(value), failures: failures, structuralSharing: request.structuralSharing)
                return
            } catch {
                guard !Task.isCancelled, isCurrent(id) else { return }
                failures += 1
                guard let delay = request.retry.delayBeforeRetry(failures, error) else {
                    finish(
                        id, .failure(error), failures: failures, structuralSharing: request.structuralSharing,
                        fallback: fallbackAfterFailure())
                    return
                }
                recordRetry(id, failures: failures)
                do {
                    try await context.tracker.sleep(for: delay, on: context.scheduler)
                } catch {
                    return
                }
                guard isCurrent(id) else { return }
            }
        }
    }

    private func isCurrent(_ id: UInt64) -> Bool {
        state.withLock { $0.inFlight?.id == id }
    }

    private func recordRetry(_ id: UInt64, failures: Int) {
        mutate { state in
            guard state.inFlight?.id == id else { return }
            state.snapshot.failureCount = failures
        }
    }

    private func finish(
        _ id: UInt64, _ result: Result<any Sendable, any Error>, failures: Int, structuralSharing: Bool,
        fallback: CachedValue<any Sendable>? = nil
    ) {
        let now = context.scheduler.now
        var needsCollection = false
        var dataChanged = false
        var isRestored = false
        let outcome = mutate {
            state -> (waiters: [CheckedContinuation<any Sendable, any Error>], value: Result<any Sendable, any Error>)?
            in
            guard let inFlight = state.inFlight, inFlight.id == id else { return nil }
            state.inFlight = nil
            state.snapshot.fetchStatus = .idle
            state.snapshot.fetchMeta = nil
            needsCollection = state.observers.isEmpty
            switch result {
            case .success(let value):
                let isSame = structuralSharing && areEqual(state.snapshot.data, value)
                if !isSame { state.snapshot.data = value }
                dataChanged = !isSame || state.snapshot.status != .success
                state.snapshot.dataUpdatedAt = now
                state.snapshot.status = .success
                state.snapshot.error = nil
                state.snapshot.failureCount = 0
                state.snapshot.isInvalidated = false
                state.snapshot.isRestored = false
                return (Array(inFlight.waiters.values), .success(state.snapshot.data ?? value))
            case .failure(let error):
                state.snapshot.error = error
                state.snapshot.errorUpdatedAt = now
                state.snapshot.status = .error
                state.snapshot.failureCount = failures
                dataChanged = true
                if state.snapshot.data == nil, let fallback {
                    state.snapshot.data = fallback.value
                    state.snapshot.dataUpdatedAt = fallback.savedAt
                    state.snapshot.isRestored = true
                    isRestored = true
                }
                // `.useIfFetchFails`: the callers get the stored value instead of the error.
                let answer = state.persistence?.value.config.usagePolicy == .useIfFetchFails ? state.snapshot.data : nil
                return (Array(inFlight.waiters.values), answer.map { .success($0) } ?? .failure(error))
            }
        }
        guard let outcome else { return }
        for waiter in outcome.waiters { waiter.resume(with: outcome.value) }
        if dataChanged { context.events.send(.updated(key)) }
        if isRestored { context.events.send(.restored(key)) }
        if case .success(let value) = result { persist(value, at: now) }
        context.events.send(.fetchFinished(key, error: result.failure))
        if needsCollection { scheduleCollection() }
    }

    // MARK: - Publication

    /// Applies `change` under the lock and publishes the new snapshot, in order, after the lock is released.
    @discardableResult
    func mutate<Result>(
        publishingIf shouldPublish: (Result) -> Bool = { _ in true }, _ change: (inout State) -> Result
    ) -> Result {
        let (result, toDrain) = state.withLock { state -> (Result, OrderedSubject<UInt64>?) in
            let result = change(&state)
            guard shouldPublish(result) else { return (result, nil) }
            state.version += 1
            guard let publication = state.publication else { return (result, nil) }
            return (result, publication.enqueue(state.version) ? publication : nil)
        }
        toDrain?.drain()
        return result
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
