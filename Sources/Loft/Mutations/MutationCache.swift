import Synchronization

/// The mutation cache of one client (TanStack's `MutationCache`): every call of every `Mutation` of the client,
/// from submission until `gcTime` after it settled, with the scopes that run their calls one at a time.
///
/// **Behavior**
/// - A call is listed from `submit` (pending) to `gcTime` after `settle`; a pending call is never removed.
/// - Every change of a call is published on the client's `events` as `.mutation(...)`, in the order of the
///   changes of that call.
/// - Calls of one scope take turns in submission order: `waitForTurn` returns for the first pending call of its
///   scope and suspends the others (paused) until every call before them settled, whatever its outcome.
/// - Settled calls are collected by one timer of the client's timer queue, set for the earliest removal (not
///   a timer per call: a round trip spent more on its timer than on its request).
/// - `cancel` cancels a call's task (a call whose task does not exist yet is cancelled as soon as it does), and
///   takes a call waiting for its turn out of the line.
package final class MutationCache: Sendable {
    /// A call as listed: what was submitted, and what changed since, changed in place (a listing is made only
    /// when asked for).
    private struct Record: Sendable {
        /// What was submitted, behind a reference: a record stays small (the table holds every call until
        /// `gcTime` after it settled).
        private let call: MutationSubmission
        /// How long the call stays listed once settled, in nanoseconds (nil: until removed by hand).
        let keptFor: Int64?
        var status = MutationStatus.pending
        var isPaused = false
        var failureCount = 0
        /// The response of a call that succeeded (`status == .success`), erased: not its box, which the
        /// mutation's state keeps while it shows it (a record is kept until `gcTime`). Not an optional, nor a
        /// `Result?`: setting or copying an optional existential runs the optional's generic code.
        var response: any Sendable = ()
        /// The error of a call that failed.
        var error: (any Error)?
        var task: TrackedTask<Result<MutationResponse, any Error>>?
        var isCancelled = false

        init(_ call: MutationSubmission, keptFor: Int64?) {
            self.call = call
            self.keptFor = keptFor
        }

        /// Records the call's outcome; returns its scope, its idempotency key if the journal may list it, and
        /// how long it stays listed.
        mutating func settle(
            with result: Result<MutationResponse, any Error>
        ) -> (scope: String?, listed: IdempotencyKey?, keptFor: Int64?) {
            switch result {
            case .success(let boxed):
                status = .success
                response = boxed.value
                // A success after retries: the failures are behind it (TanStack resets the count).
                failureCount = 0
            case .failure(let failure):
                status = .error
                error = failure
            }
            isPaused = false
            task = nil
            return (call.scope, MutationJournal.mayList(call.mutationKey) ? call.key : nil, keptFor)
        }

        /// The call as the listing shows it now.
        var info: MutationInfo {
            call.info(
                status: status, isPaused: isPaused, failureCount: failureCount,
                response: status == .success ? response : nil, error: error)
        }
    }

    private struct State: Sendable {
        var records = CallTable<Record>()
        var lines: [String: ScopeLine] = [:]
        var nextID: UInt64 = 0
        var idempotencyKeys = IdempotencyKeys()
        var callbacks = MutationCallbacks()
        /// How to send again a call restored after a restart, by mutation key (`setMutationDefaults`).
        var resumers: [QueryKey: Resumer] = [:]
        /// When settled calls are due for removal, earliest first.
        var removals = Heap<Removal>()
        /// The instant the collector's timer was last set for (nil: not set).
        var collectorSetFor: SchedulerInstant?
        /// The client is gone (`close()`): the collector is not set again.
        var isClosed = false
    }

    /// Sends again a call restored after a restart, as a mutation of the client given.
    package typealias Resumer = @Sendable (QueryClient, MutationRecord) throws -> Void

    /// A settled call's removal, `gcTime` after it settled.
    private struct Removal: Comparable, Sendable {
        let instant: SchedulerInstant
        let id: UInt64

        static func < (lhs: Removal, rhs: Removal) -> Bool {
            (lhs.instant, lhs.id) < (rhs.instant, rhs.id)
        }
    }

    private let context: ClientContext
    private let state = Locked(State())
    /// Whether `state.callbacks` holds a callback.
    private let hasCallbacks = Atomic<Bool>(false)
    /// The timer that removes settled calls when they are due.
    private let collector: TimerQueue.Key
    /// The pending calls written to the client's persistent cache.
    package let journal: MutationJournal

    package init(context: ClientContext, provider: @escaping @Sendable () -> (any QueryCacheType)?) {
        self.context = context
        collector = TimerQueue.Key(owner: context.timers.makeOwner(), kind: 0)
        journal = MutationJournal(context: context, provider: provider)
    }

    // MARK: - Reading

    /// The client-wide callbacks, run before each mutation's own. A call reads them as it starts; most clients
    /// set none, and then reading them takes no lock.
    package var callbacks: MutationCallbacks {
        get { hasCallbacks.load(ordering: .acquiring) ? state.withLock { $0.callbacks } : MutationCallbacks() }
        set {
            state.withLock { state in
                state.callbacks = newValue
                hasCallbacks.store(!newValue.isEmpty, ordering: .releasing)
            }
        }
    }

    /// The calls `filter` lets through, in submission order.
    package func infos(matching filter: MutationFilter) -> [MutationInfo] {
        let infos = state.withLock { $0.records.values.map(\.info) }
        return infos.filter { filter.matches($0) }.sorted { $0.id < $1.id }
    }

    /// The call's listing now, by reference.
    package func listing(_ id: UInt64) -> MutationListing? {
        state.withLock { $0.records.read(id) { MutationListing($0.info) } }
    }

    /// Registers how calls of `mutationKey` restored after a restart are sent again.
    package func setResumer(_ resume: @escaping Resumer, for mutationKey: QueryKey) {
        state.withLock { $0.resumers[mutationKey] = resume }
    }

    /// Sends again, in submission order, the calls listed in the journal that no call of this client runs; a
    /// call whose mutation key has no defaults stays listed, and one whose request no longer decodes is taken
    /// off the list; both are reported on `events`. Returns how many were resumed.
    package func resumeJournal(for client: QueryClient) -> Int {
        var resumed = 0
        for record in journal.records where journal.claim(record.idempotencyKey) {
            guard let resume = state.withLock({ $0.resumers[record.mutationKey] }) else {
                journal.unclaim(record.idempotencyKey)
                let error = MutationError.noDefaults(mutationKey: record.mutationKey)
                context.emit(.persistenceFailed(MutationJournal.key, error: error))
                continue
            }
            do {
                try resume(client, record)
                resumed += 1
            } catch {
                context.emit(.persistenceFailed(MutationJournal.key, error: error))
                journal.clear(record.idempotencyKey)
            }
        }
        return resumed
    }

    // MARK: - A call's life

    /// Lists a new pending call, kept listed `keptFor` nanoseconds once settled (its `gcTime`, converted once
    /// per mutation; nil: until removed by hand); returns it as submitted, by reference (the record shares it:
    /// it is not copied). Its place in the journal is reserved.
    func submit(
        request: any Sendable, mutationKey: QueryKey?, scope: String?, keptFor: Int64?, meta: [String: String]
    ) -> MutationSubmission {
        let call = list(
            request: request, mutationKey: mutationKey, scope: scope, keptFor: keptFor, meta: meta,
            submittedAt: context.now, key: nil)
        journal.reserve(call)
        return call
    }

    /// Lists a call saved before a restart, as `submit` lists a new one: it keeps its idempotency key and its
    /// submission time (and the journal still lists it).
    func submit(request: any Sendable, restoring record: MutationRecord, keptFor: Int64?) -> MutationSubmission {
        list(
            request: request, mutationKey: record.mutationKey, scope: record.scope, keptFor: keptFor,
            meta: record.meta, submittedAt: record.submittedAt, key: IdempotencyKey(.restored(record.idempotencyKey)))
    }

    /// Lists a pending call, with a new idempotency key unless it is given one.
    private func list(
        request: any Sendable, mutationKey: QueryKey?, scope: String?, keptFor: Int64?, meta: [String: String],
        submittedAt: SchedulerInstant, key: IdempotencyKey?
    ) -> MutationSubmission {
        let call = state.withLock { state -> MutationSubmission in
            state.nextID += 1
            let call = MutationSubmission(
                id: state.nextID, mutationKey: mutationKey, scope: scope, request: request, submittedAt: submittedAt,
                meta: meta, key: key ?? state.idempotencyKeys.next())
            state.records.insert(Record(call, keptFor: keptFor), for: state.nextID)
            if let scope { state.lines[scope, default: ScopeLine()].append(state.nextID) }
            return call
        }
        context.emit(.mutation(.added(call.info())))
        return call
    }

    /// Gives the call the task that runs it; cancels it at once when the call was cancelled before. A call
    /// that already settled (its task ran before this) does not keep it: a finished task holds its memory
    /// until released, and the listing stays until `gcTime` after settling. Returns whether the call is still
    /// pending (a caller that awaits a settled call has nothing left to cancel).
    @discardableResult
    package func attach(_ task: TrackedTask<Result<MutationResponse, any Error>>, to id: UInt64) -> Bool {
        let (isPending, isCancelled) = state.withLock { state -> (Bool, Bool) in
            state.records.update(id) { record -> (Bool, Bool) in
                guard record.status == .pending else { return (false, false) }
                record.task = task
                return (true, record.isCancelled)
            } ?? (false, false)
        }
        if isCancelled { task.cancel() }
        return isPending
    }

    /// Changes what the listing shows of a pending call.
    package func update(_ id: UInt64, isPaused: Bool? = nil, failureCount: Int? = nil) {
        let changed = state.withLock { state -> Record? in
            state.records.update(id) { record -> Record? in
                guard record.status == .pending else { return nil }
                let (isPaused, failureCount) = (isPaused ?? record.isPaused, failureCount ?? record.failureCount)
                // Nothing changed, nothing to tell (a call that never waited "continues" after its scope check).
                guard isPaused != record.isPaused || failureCount != record.failureCount else { return nil }
                record.isPaused = isPaused
                record.failureCount = failureCount
                return record
            } ?? nil
        }
        if let changed { context.emit(.mutation(.updated(changed.info))) }
    }

    /// Returns when the scoped call may run: at once as the first of its scope's line, else once every call
    /// before it settled (shown paused meanwhile). `scope` is the call's as submitted; a call without one
    /// never waits, and does not call this (an async call costs a frame and an executor check).
    ///
    /// - Throws: `CancellationError` when the call is cancelled while it waits.
    package func waitForTurn(_ id: UInt64, scope: String) async throws {
        guard state.withLock({ $0.lines[scope]?.first != id }) else { return }
        update(id, isPaused: true)
        try await context.tracker.suspend { resume in
            let isFirst = state.withLock { state -> Bool in
                guard state.lines[scope]?.first != id else { return true }
                state.lines[scope]?.wait(id, resume: resume)
                return false
            }
            if isFirst { resume() }
            return { self.leaveLine(id, scope: scope) }
        }
        update(id, isPaused: false)
    }

    /// Settles the call with `result`: the listing shows it, its scope's next call runs, and it is removed
    /// `gcTime` later.
    package func settle(_ id: UInt64, _ result: Result<MutationResponse, any Error>) {
        let now = context.now
        let isHeard = context.isHeard
        let settled = state.withLock { state -> Settled? in
            guard let (scope, listed, keptFor) = state.records.update(id, { $0.settle(with: result) }) else {
                return nil
            }
            if let keptFor {
                state.removals.insert(Removal(instant: now.advanced(byNanoseconds: keptFor), id: id))
            }
            return Settled(
                listed: listed, listing: isHeard ? state.records.read(id) { MutationListing($0.info) } : nil,
                next: Self.removeFromLine(id, scope, &state),
                setsCollector: state.removals.min?.instant != state.collectorSetFor)
        }
        guard let settled else { return }
        if let listed = settled.listed { journal.clear(listed.string) }
        if let listing = settled.listing { context.emit(.mutation(.updated(listing.info))) }
        settled.next?()
        if settled.setsCollector { setCollector() }
    }

    /// What `settle` does once the lock is released.
    private struct Settled: Sendable {
        /// The idempotency key of a call the journal may list.
        let listed: IdempotencyKey?
        /// The call as listed now, when the client's events are heard.
        let listing: MutationListing?
        /// Wakes the next call of its scope.
        let next: (@Sendable () -> Void)?
        let setsCollector: Bool
    }

    /// Cancels the pending calls `filter` lets through; returns how many.
    @discardableResult
    package func cancel(matching filter: MutationFilter) -> Int {
        let ids = infos(matching: filter).filter { $0.status == .pending }.map(\.id)
        for id in ids { cancel(id) }
        return ids.count
    }

    /// How many calls hold their task now (for tests): pending ones only.
    package var heldTaskCount: Int {
        state.withLock { $0.records.values.count { $0.task != nil } }
    }

    /// Cancels the call `id` if it is pending.
    package func cancel(_ id: UInt64) {
        let task = state.withLock { state -> TrackedTask<Result<MutationResponse, any Error>>? in
            state.records.update(id) { record in
                guard record.status == .pending else { return nil }
                record.isCancelled = true
                return record.task
            } ?? nil
        }
        task?.cancel()
    }

    /// Removes every settled call (`QueryClient.clear()`); pending ones stay.
    package func removeSettled() {
        let removed = state.withLock { state -> [Record] in
            // Nothing settled is left to remove.
            state.removals = Heap()
            return state.records.removeAll { $0.status != .pending }
        }
        for record in removed {
            context.emit(.mutation(.removed(record.info)))
        }
        setCollector()
    }

    // MARK: - Internals

    /// Removes the settled calls that are due, then sets the collector for the next.
    private func collectDue() {
        let now = context.now
        let removed = state.withLock { state -> [MutationInfo] in
            // The timer fired: it is no longer set.
            state.collectorSetFor = nil
            var removed: [MutationInfo] = []
            while let first = state.removals.min, first.instant <= now {
                _ = state.removals.popMin()
                guard state.records.read(first.id, { $0.status != .pending }) == true,
                    let record = state.records.remove(first.id)
                else { continue }
                removed.append(record.info)
            }
            return removed
        }
        for info in removed { context.emit(.mutation(.removed(info))) }
        setCollector()
    }

    /// Sets the collector's timer for the earliest removal (or cancels it when there is none), unless it is set
    /// for it already. Threads that settle at once may set it in any order: each checks, after setting it, that
    /// what it set is still the earliest, and sets it again if not, so the last one to set it leaves it right.
    private func setCollector() {
        var target = state.withLock { state -> SchedulerInstant?? in
            let earliest = state.isClosed ? nil : state.removals.min?.instant
            return earliest == state.collectorSetFor ? .none : .some(earliest)
        }
        while case .some(let instant) = target {
            // A strong reference (a weak one would slow every retain of this cache), held while the timer is
            // set; `close()` cancels it when the client goes.
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

    /// A call left its line without settling (cancelled while waiting).
    private func leaveLine(_ id: UInt64, scope: String) {
        let next = state.withLock { state in Self.removeFromLine(id, scope, &state) }
        next?()
    }

    /// Takes `id` out of its scope's line; returns how to wake the call that runs next, if it waits.
    private static func removeFromLine(_ id: UInt64, _ scope: String?, _ state: inout State) -> (@Sendable () -> Void)?
    {
        // Moved out of the dictionary and back, so that changing it copies nothing.
        guard let scope, var line = state.lines.removeValue(forKey: scope) else { return nil }
        let next = line.remove(id)
        if !line.isEmpty { state.lines[scope] = line }
        return next
    }
}
