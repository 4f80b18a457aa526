import Synchronization

/// The mutation cache of one client (TanStack's `MutationCache`): every call of every `Mutation` of the client,
/// from submission until `gcTime` after it settled, the scopes that run their calls one at a time, the
/// defaults by mutation key, and the offline journal. The storage of the calls' state machines
/// (`MutationCallStateMachine`, which holds every rule of a call): it sends each event to the call's record
/// and is the one performer of the actions, after every lock is released (the steps it hands to the call's
/// task). Collection is in `MutationCache+Collection.swift`, reconnecting in `MutationCache+Reconnect.swift`.
///
/// **Behavior**
/// - A call is listed from `submit` (pending) to `gcTime` after it settled; a pending call is never removed.
/// - Every change of a call is published once, in order: on the client's `events` as `.mutation(...)`, then to
///   its mutation.
/// - Calls of one scope take turns in submission order: `awaitTurn` returns for the first pending call of its
///   scope and suspends the others (paused) until every call before them settled, whatever its outcome.
/// - Settled calls are collected by one timer of the client's timer queue, set for the earliest removal.
/// - `cancel` cancels a call's task (a call whose task does not exist yet is cancelled as soon as it does).
package final class MutationCache: Sendable {
    struct State: Sendable {
        /// The calls listed, by id (ids increase in submission order).
        var records: [UInt64: MutationCallRecord] = [:]
        var lines: [String: MutationScopeLine] = [:]
        var nextID: UInt64 = 0
        var nextOwner: UInt64 = 0
        var idempotencyKeys = IdempotencyKeys()
        var callbacks = MutationCallbacks()
        /// `setMutationDefaults`, by key prefix.
        var defaults: [QueryKey: RegisteredDefaults] = [:]
        /// When settled calls are due for removal, earliest first.
        var removals = Heap<Removal>()
        /// The instant the collector's timer was last set for (nil: not set).
        var collectorSetFor: SchedulerInstant?
        /// The client is gone (`close()`): the collector is not set again.
        var isClosed = false
        /// The calls that were paused when the network came back, and what runs once they all settled.
        var reconnecting: Set<UInt64> = []
        var afterReconnecting: (@Sendable () -> Void)?
    }

    /// Defaults registered for a key prefix: the options (a `MutationOptions` of their types) and how a call
    /// restored after a restart is sent again.
    struct RegisteredDefaults: Sendable {
        let options: any Sendable
        let resume: Resumer
    }

    /// Sends again a call restored after a restart, as a mutation of the client given.
    typealias Resumer = @Sendable (QueryClient, MutationJournal.Entry) throws -> Void

    /// A settled call's removal, `gcTime` after it settled.
    struct Removal: Comparable, Sendable {
        let instant: SchedulerInstant
        let id: UInt64

        static func < (lhs: Removal, rhs: Removal) -> Bool {
            (lhs.instant, lhs.id) < (rhs.instant, rhs.id)
        }
    }

    let context: ClientContext
    /// Internal for the extensions in the files beside this one.
    let state = Locked(State())
    /// Whether `state.reconnecting` holds a call: a call that settles while none does takes no lock for it.
    let isReconnecting = Atomic<Bool>(false)
    /// The timer that removes settled calls when they are due.
    let collector: TimerKey
    /// The pending calls written to the client's persistent cache.
    package let journal: MutationJournal

    /// How many settled calls are kept at most (the client's `MemoryBudget.mutationCalls`); nil: no bound but
    /// their `gcTime`.
    let keepsSettled: Int?

    package init(
        context: ClientContext, keepsSettled: Int? = nil,
        provider: @escaping @Sendable () -> (any QueryCacheType)?
    ) {
        self.context = context
        self.keepsSettled = keepsSettled
        collector = context.timers.makeKey()
        journal = MutationJournal(context: context, provider: provider)
    }

    // MARK: - Reading

    /// The client-wide callbacks, run before each mutation's own.
    package var callbacks: MutationCallbacks {
        get { state.withLock { $0.callbacks } }
        set { state.withLock { $0.callbacks = newValue } }
    }

    /// The calls `filter` lets through, in submission order.
    package func infos(matching filter: MutationFilter) -> [MutationInfo] {
        let records = state.withLock { $0.records.values.sorted { $0.id < $1.id } }
        return records.map(\.info).filter { filter.matches($0) }
    }

    /// The call `id`, while it is listed.
    package func record(_ id: UInt64) -> MutationCallRecord? {
        state.withLock { $0.records[id] }
    }

    /// How many calls hold their task now (for tests): pending ones only.
    package var heldTaskCount: Int {
        state.withLock { Array($0.records.values) }.count { $0.holdsTask }
    }

    // MARK: - Defaults

    /// Registers the defaults of the mutation keys under `prefix`; replaces those set before for it.
    func setDefaults(_ defaults: RegisteredDefaults, for prefix: QueryKey) {
        state.withLock { $0.defaults[prefix] = defaults }
    }

    /// The options of `mutationKey`'s defaults of these types, merged field by field (the longer prefix
    /// winning per field); nil when none is registered.
    func defaultOptions<Request, Response>(
        for mutationKey: QueryKey, as _: MutationOptions<Request, Response>.Type
    ) -> MutationOptions<Request, Response>? {
        let matching = state.withLock { state -> [(QueryKey, RegisteredDefaults)] in
            guard !state.defaults.isEmpty else { return [] }
            return state.defaults.filter { mutationKey.hasPrefix($0.key) }.map { ($0.key, $0.value) }
        }
        var merged: MutationOptions<Request, Response>?
        for (_, defaults) in matching.sorted(by: { $0.0.parts.count < $1.0.parts.count }) {
            guard let options = defaults.options as? MutationOptions<Request, Response> else { continue }
            merged = merged.map { options.merged(over: $0) } ?? options
        }
        return merged
    }

    /// The defaults that resume a saved call of `mutationKey`: those of the longest prefix.
    private func resumer(for mutationKey: QueryKey) -> Resumer? {
        state.withLock { state in
            state.defaults.filter { mutationKey.hasPrefix($0.key) }.max { $0.key.parts.count < $1.key.parts.count }?
                .value.resume
        }
    }

    // MARK: - A call's life

    /// Lists a new call and submits it: returns its record and the first step of its task. `flags` makes the
    /// call's machine flags from its id (`MutationCallStateMachine.flags(id:plan:…)`).
    func submit(
        request: any Sendable, mutationKey: QueryKey?, scope: String?, meta: [String: String],
        restoring entry: MutationJournal.Entry? = nil, owner: UInt64?, onChange: (@Sendable () -> Void)?,
        flags: (UInt64) -> MutationCallStateMachine.Flags
    ) -> (MutationCallRecord, MutationCallAction?) {
        let submittedAt = entry?.record.submittedAt ?? context.now
        let record = state.withLock { state -> MutationCallRecord in
            state.nextID += 1
            let key = entry.map { IdempotencyKey(.restored($0.record.idempotencyKey)) } ?? state.idempotencyKeys.next()
            let record = MutationCallRecord(
                id: state.nextID, mutationKey: mutationKey, scope: scope, request: request, meta: meta, key: key,
                submittedAt: submittedAt, machine: MutationCallStateMachine(flags(state.nextID)), owner: owner,
                onChange: onChange)
            state.records[record.id] = record
            if let scope { state.lines[scope, default: MutationScopeLine()].append(record.id) }
            return record
        }
        return (record, send(.submitted, to: record))
    }

    /// Applies `event` to the call and performs its actions, after the record's lock: the one performer of a
    /// call's actions. Returns the step its task takes next (`MutationCallAction.isStep`), if any.
    @discardableResult
    func send(_ event: MutationCallEvent, to record: MutationCallRecord) -> MutationCallAction? {
        let handled = record.handle(event, at: context.now)
        var step: MutationCallAction?
        for action in handled.actions {
            switch action {
            case .runOnMutate, .waitForTurn, .sendRequest, .runCallbacks:
                step = action
            case .finish:
                step = action
                settledWhileReconnecting(record.id)
            case .persist:
                journal.write(record)
            case .forget:
                journal.clear(record.key.string)
            case .leaveScope:
                leaveLine(record)
            case .publish(let change):
                if change == .removed { state.withLock { _ = $0.records.removeValue(forKey: record.id) } }
                if context.isHeard {
                    let info = record.info
                    switch change {
                    case .added: context.emit(.mutation(.added(info)))
                    case .updated: context.emit(.mutation(.updated(info)))
                    case .removed: context.emit(.mutation(.removed(info)))
                    }
                }
                // Its mutation shows it from the moment it is the latest call, after `added`, and follows what
                // it shows of it.
                if change != .added, handled.shownChanged { record.onChange?() }
            case .armRemoval(let instant):
                let (sets, overflow) = state.withLock { state -> (Bool, [MutationCallRecord]) in
                    state.removals.insert(Removal(instant: instant, id: record.id))
                    return (
                        state.removals.min?.instant != state.collectorSetFor, Self.overflow(of: &state, keepsSettled)
                    )
                }
                collect(overflow)
                if sets { setCollector() }
            case .cancelTask(let task):
                task.cancel()
            }
        }
        return step
    }

    /// Gives the call the task that runs it (the machine cancels it at once when the call was cancelled before).
    func attach(_ task: MutationTask, to record: MutationCallRecord) {
        send(.taskAttached(task), to: record)
    }

    /// Returns when the scoped call may run: at once as the first of its scope's line, else (paused meanwhile)
    /// once every call before it settled.
    ///
    /// - Throws: `CancellationError` when the call is cancelled while it waits.
    func awaitTurn(_ record: MutationCallRecord) async throws {
        guard let scope = record.scope, state.withLock({ $0.lines[scope]?.isFirst(record.id) == false }) else {
            return
        }
        send(.queued, to: record)
        try await context.tracker.suspend { resume in
            let isFirst = state.withLock { state -> Bool in
                guard state.lines[scope]?.isFirst(record.id) == false else { return true }
                state.lines[scope]?.wait(record.id, resume: resume)
                return false
            }
            if isFirst { resume() }
            return {}
        }
    }

    /// Cancels the pending calls `filter` lets through; returns how many.
    @discardableResult
    package func cancel(matching filter: MutationFilter) -> Int {
        let ids = infos(matching: filter).filter { $0.status == .pending }.map(\.id)
        for id in ids { cancel(id) }
        return ids.count
    }

    /// A new name for the calls of one `Mutation`.
    func newOwner() -> UInt64 {
        state.withLock { state in
            state.nextOwner += 1
            return state.nextOwner
        }
    }

    /// Cancels the pending calls of one mutation (`Mutation.cancel()`).
    func cancel(ownedBy owner: UInt64) {
        let records = state.withLock { $0.records.values.filter { $0.owner == owner } }
        for record in records.sorted(by: { $0.id < $1.id }) { send(.cancelled, to: record) }
    }

    /// Cancels the call `id` if it is pending.
    package func cancel(_ id: UInt64) {
        guard let record = record(id) else { return }
        // Its task is cancelled: a call waiting for its turn stops waiting, and fails as cancelled.
        send(.cancelled, to: record)
    }

    /// Removes every settled call (`QueryClient.clear()`); pending ones stay.
    package func removeSettled() {
        let records = state.withLock { state -> [MutationCallRecord] in
            state.removals = Heap()
            return Array(state.records.values)
        }
        collect(records.sorted { $0.id < $1.id })
        setCollector()
    }

    // MARK: - Restarts

    /// Sends again, in submission order, the calls the journal lists that this client has not run; a call whose
    /// mutation key has no defaults stays listed, and one whose request no longer decodes is taken off the
    /// list; both are reported on `events`. Returns how many were resumed.
    package func resumeJournal(for client: QueryClient) -> Int {
        var resumed = 0
        for entry in journal.unclaimedEntries() {
            guard let resume = resumer(for: entry.record.mutationKey) else {
                journal.unclaim(entry)
                let error = MutationError.noDefaults(mutationKey: entry.record.mutationKey)
                context.emit(.persistenceFailed(entry.key, error: error))
                continue
            }
            do {
                try resume(client, entry)
                resumed += 1
            } catch {
                context.emit(.persistenceFailed(entry.key, error: error))
                journal.clear(entry.record.idempotencyKey)
            }
        }
        return resumed
    }

    /// Takes the call out of its scope's line and wakes the call whose turn it is now (`MutationScopeLine`).
    private func leaveLine(_ record: MutationCallRecord) {
        guard let scope = record.scope else { return }
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            guard var line = state.lines.removeValue(forKey: scope) else { return nil }
            let next = line.leave(record.id)
            if !line.isEmpty { state.lines[scope] = line }
            return next
        }
        next?()
    }
}
