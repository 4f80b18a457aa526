import Synchronization

/// The cache entry of one key: the thin storage around its `EntryStateMachine`. It holds the machine behind
/// the one lock, feeds it events with the client's current instant, focus and network, and performs the
/// actions it returns once the lock is released (tasks, waiters, timers, persistence, events, publication).
///
/// **Behavior**
/// - Every lifecycle rule (freshness, join or replace, retries stopping, cancel and restore, garbage
///   collection, staleness timers, persistence policies) is the machine's; this type decides nothing.
/// - Every change is told to the entry's listeners (its views) after the lock is released; no lock is held
///   while observers, fetchers, user closures or continuations run.
@usableFromInline
package final class QueryCacheEntry: Sendable {
    /// The entry's state behind its one lock (internal for the extensions in the files beside this one).
    struct Storage: Sendable {
        /// The listeners, views, waiters' answers and store read (`EntryAttachments`): none or one, made on first
        /// use. Read and written only through the properties of `EntryAttachments.swift`. First: the machine and
        /// the flag after it end in one-byte fields, which the lock (4 bytes) follows without padding, so that
        /// the entry's state is one 184-byte allocation, a malloc chunk of 192 (row (i)).
        var attachmentStorage: [EntryAttachments] = []
        var machine: EntryStateMachine
        /// Whether the client's memory ledger lists the entry as idle (it starts in use by its maker). Next to
        /// the machine, in the bytes its last field leaves.
        var reportedIdle = false
    }

    /// A waiter's answer, registered in the lock hold that sends the event naming the waiter.
    private typealias Registration = (waiter: EntryWaiter, continuation: Answer)

    package let key: QueryKey
    let context: ClientContext
    let storage: Locked<Storage>
    /// The machine's `firstRefetch(on:)` for focus and reconnect (`TriggerMirror`), mirrored after every event.
    private let triggers = Atomic<UInt64>(TriggerMirror.never.word)

    package init(key: QueryKey, context: ClientContext, defaults: QueryDefaults) {
        self.key = key
        self.context = context
        let machine = EntryStateMachine(gcTime: defaults.gcTime)
        storage = Locked(Storage(machine: machine))
    }

    // MARK: - Reading

    package var snapshot: EntrySnapshot {
        storage.withLock { $0.machine.snapshot }
    }

    /// Calls `listener` after every change of the entry from now on, until the returned token is cancelled.
    /// Listeners read `snapshot` when they need it: passing the version is cheaper than copying the snapshot to
    /// each.
    func addListener(_ listener: any EntryListener) -> Subscription {
        let id = context.nextID()
        storage.withLock { $0.listeners.append((id, listener)) }
        // A strong capture, released when the token is cancelled: a weak reference would give every entry a
        // side table, and make each retain of it (a scan of 10,000 entries) take the slow path.
        return Subscription(cancelsOnRelease: false) { [self] in
            storage.withLock { storage in
                storage.listeners.removeAll { $0.id == id }
                storage.dropEmptyAttachments()
            }
        }
    }

    /// How many listeners follow the entry.
    var listenerCount: Int {
        storage.withLock { $0.listeners.count }
    }

    /// The data alone: a cache-hit read copies nothing else.
    @usableFromInline
    package var data: (any Sendable)? {
        storage.withLock { $0.machine.snapshot.data }
    }

    /// The data, and whether it is stale for `staleTime` at `now` (the staleness rule asked on the snapshot,
    /// under the lock): a read the cache answers needs no waiter and no event of the machine. Nil when the
    /// machine must decide: no data, removed, or a `gcTime` longer than the entry keeps (which the machine
    /// records).
    package func cachedData(
        judgedBy staleTime: StaleTime, keeping gcTime: GCTime?, at now: SchedulerInstant
    ) -> CachedHit? {
        storage.withLock { storage in
            guard !storage.machine.isRemoved, storage.machine.keepsGCTime(gcTime),
                let data = storage.machine.snapshot.data
            else { return nil }
            return CachedHit(
                data: data, isStale: Staleness.isStale(storage.machine.snapshot, judgedBy: staleTime, at: now))
        }
    }

    /// Whether nobody observes the entry and it is not fetching.
    package var isIdle: Bool {
        storage.withLock { $0.machine.isIdle }
    }

    package var isFetching: Bool {
        storage.withLock { $0.machine.isFetching }
    }

    /// Whether the entry was removed from its client (garbage collection, `removeQueries`, `clear()`).
    package var isRemoved: Bool {
        storage.withLock { $0.machine.isRemoved }
    }

    /// What a filter looks at.
    package func info(at now: SchedulerInstant) -> QueryInfo {
        storage.withLock { $0.machine.info(of: key, at: now) }
    }

    /// What an inspector shows: the snapshot, what a filter sees, and when the entry is collected (nil while
    /// observed, fetching, or kept forever), read in one lock hold.
    package func inspection(at now: SchedulerInstant) -> (EntrySnapshot, QueryInfo, collectedAt: SchedulerInstant?) {
        storage.withLock { ($0.machine.snapshot, $0.machine.info(of: key, at: now), $0.machine.collectionDeadline) }
    }

    // MARK: - Events

    /// Feeds `event` to the state machine, publishes the change if any, and performs the actions.
    @discardableResult
    package func send(_ event: EntryEvent) -> EntryStateMachine.Output {
        send(event, at: context.now, conditions: context.environment.conditions)
    }

    /// `send(_:)` with the instant and conditions read once for many entries (focus, reconnect).
    @discardableResult
    package func send(
        _ event: EntryEvent, at now: SchedulerInstant, conditions: ClientEnvironment.Conditions
    ) -> EntryStateMachine.Output {
        send(event, at: now, conditions: conditions, registering: nil)
    }

    /// Sends `event`, registering first the continuation of the waiter it names, in the same hold of the lock.
    private func send(
        _ event: EntryEvent, at now: SchedulerInstant, conditions: ClientEnvironment.Conditions,
        registering registration: Registration?
    ) -> EntryStateMachine.Output {
        let (output, version, listeners, startWriter, resumed, budget) = storage.withLock { storage in
            if let registration { storage.continuations[registration.waiter] = registration.continuation }
            let version = storage.machine.version
            let dataVersion = storage.machine.snapshot.dataVersion
            let output = storage.machine.handle(event, of: key, at: now, conditions: conditions)
            mirrorTriggers(storage.machine)
            let startWriter = queueSaves(output.actions)
            let resumed = Self.takeContinuations(for: output.actions, from: &storage)
            let changed = storage.machine.version != version
            // A read that asks for its fetcher changed nothing, and its request follows: a new entry stays in
            // use by its maker until then, where reporting it idle would let the budget evict it in between.
            let budget =
                output.needsFetcher
                ? nil : context.ledger.map { report(to: $0, &storage, dataVersionBefore: dataVersion) }
            return (output, storage.machine.version, changed ? storage.listeners : [], startWriter, resumed, budget)
        }
        if startWriter { context.writer.start() }
        for listener in listeners { listener.listener.entryChanged(to: version) }
        perform(output.actions, resuming: resumed)
        if let budget, let ledger = context.ledger { settle(budget, with: ledger) }
        return output
    }

    /// Takes out of the table the continuations of the waiters that `actions` answer (with the lock held, so
    /// each is resumed once), in the order the `resume` actions name them: a list, not a second table, so that
    /// answering 10,000 joined callers hashes each once.
    private static func takeContinuations(for actions: [EntryAction], from storage: inout Storage) -> [Answer?] {
        guard storage.hasContinuations else { return [] }
        var taken: [Answer?] = []
        for case .resume(let waiters, _) in actions {
            taken.reserveCapacity(taken.count + waiters.count)
            for waiter in waiters { taken.append(storage.continuations.removeValue(forKey: waiter)) }
        }
        // An emptied dictionary keeps its buffer: an idle entry should not (about 100 bytes a key, row (i)).
        storage.dropEmptyAttachments()
        return taken
    }

    /// Whether `trigger` coming at `now` may refetch the entry (false: it certainly does not).
    func mayRefetch(on trigger: ObserverTally.Trigger, at now: TriggerMirror.Moment) -> Bool {
        TriggerMirror(word: triggers.load(ordering: .acquiring)).mayRefetch(on: trigger, at: now)
    }

    /// Hands the saves among `actions` to the client's writer. Called with the lock held, so the writer gets an
    /// entry's values in the order of its changes (the latest is the one written); true when the writer must be
    /// started once the lock is released.
    private func queueSaves(_ actions: [EntryAction]) -> Bool {
        var startWriter = false
        for case .save(let value, let instant, let persistence) in actions
        where context.writer.enqueue(value, for: key, at: instant, to: persistence) {
            startWriter = true
        }
        return startWriter
    }

    /// Called with the lock held, so the mirrors change in the order of the events.
    private func mirrorTriggers(_ machine: EntryStateMachine) {
        let mirror = TriggerMirror(
            focus: machine.firstRefetch(on: .focus), reconnect: machine.firstRefetch(on: .reconnect))
        triggers.store(mirror.word, ordering: .releasing)
    }

    /// Starts a fetch, joins the one in flight, or does nothing, as the machine decides for `intent`.
    package func request(_ request: FetchRequest, _ intent: FetchIntent, observer: UInt64? = nil) {
        send(.fetchRequested(request, intent, observer: observer, waiter: nil))
    }

    /// Starts a fetch, joins the one in flight, or answers from the cache, as `request(_:_:observer:)` does, and
    /// returns the answer's outcome for a caller who awaits it later.
    func start(_ request: FetchRequest, _ intent: FetchIntent, observer: UInt64? = nil) -> FetchOutcome {
        outcome { waiter in .fetchRequested(request, intent, observer: observer, waiter: waiter) }
    }

    /// The outcome of the fetch in flight (with none, the data now, or `QueryError.disabled` without data), for
    /// a caller who awaits it later.
    func joinFetch() -> FetchOutcome {
        outcome { waiter in .waiterJoined(waiter, skipsPaused: false) }
    }

    /// Sends the event a new waiter makes, with an outcome registered as its answer.
    private func outcome(_ event: (EntryWaiter) -> EntryEvent) -> FetchOutcome {
        let outcome = FetchOutcome()
        let waiter = makeWaiter()
        send(event(waiter), registering: (waiter, .outcome(outcome)))
        return outcome
    }

    /// The value `intent` asks for: the cached one when it answers, else the result of the fetch it starts or
    /// joins.
    ///
    /// - Throws: the fetcher's last error once retries are exhausted; `QueryError.cancelled` when the fetch is
    ///   cancelled; `QueryError.disabled` when the request needs no fetch and there is no data;
    ///   `CancellationError` when the calling task is cancelled (the fetch goes on for others).
    package func fetchValue(_ request: FetchRequest, _ intent: FetchIntent, observer: UInt64? = nil) async throws
        -> any Sendable
    {
        try await wait { waiter, answer in
            send(.fetchRequested(request, intent, observer: observer, waiter: waiter), registering: (waiter, answer))
        }
    }

    /// The value a read (`fetchQuery` and friends) asks for, as `fetchValue` gives it, with the fetcher made
    /// only when the machine needs it (`EntryEvent.readRequested`): a caller whom the cache answers, or who
    /// joins the fetch in flight, makes none (row (e)).
    ///
    /// - Throws: as `fetchValue`.
    package func readValue(
        _ call: FetchCall, _ intent: FetchIntent, makeFetcher: () -> any ErasedFetcher
    ) async throws -> any Sendable {
        try await wait { waiter, answer in
            guard send(.readRequested(call, intent, waiter: waiter), registering: (waiter, answer)).needsFetcher
            else { return }
            // The waiter's answer stays registered: the request that follows names the same waiter.
            let request = FetchRequest(fetcher: makeFetcher(), call: call)
            send(.fetchRequested(request, intent, observer: nil, waiter: waiter))
        }
    }

    /// Returns once the fetch in flight, if any, has settled (whatever its result); with `skipsPaused`, at once
    /// while it waits paused for the network.
    package func settled(skipsPaused: Bool = false) async {
        _ = try? await wait { waiter, answer in
            send(.waiterJoined(waiter, skipsPaused: skipsPaused), registering: (waiter, answer))
        }
    }

    /// Makes a waiter, lets `sendEvents` send the events that name it (the first registering its answer), and
    /// waits until the machine resumes it; a cancelled caller leaves.
    private func wait(_ sendEvents: (EntryWaiter, Answer) -> Void) async throws -> any Sendable {
        let waiter = makeWaiter()
        return try await withTaskCancellationHandler {
            try await Self.withWaiterContinuation { continuation in
                sendEvents(waiter, .task(continuation))
                // Cancelled before the machine knew the waiter, the handler's leave found none: it leaves now (a
                // second leave changes nothing).
                if Task.isCancelled { send(.waiterLeft(waiter)) }
            }
        } onCancel: {
            send(.waiterLeft(waiter))
        }
    }

    /// Sends `event`, which names a new waiter, registering the waiter's answer in the same hold of the lock.
    @discardableResult
    private func send(_ event: EntryEvent, registering registration: Registration) -> EntryStateMachine.Output {
        send(event, at: context.now, conditions: context.environment.conditions, registering: registration)
    }

    /// A waiter the machine has not seen yet, numbered by the client's counter (no lock of the entry's).
    private func makeWaiter() -> EntryWaiter {
        EntryWaiter(id: context.nextID())
    }

    /// Writes `value` as the entry's data; an `Equatable` value equal to the old one keeps the old one
    /// (compared outside the lock). Returns whether the data changed.
    @discardableResult
    package func setData(
        _ value: any Sendable, updatedAt: SchedulerInstant, mode: EntryEvent.WriteMode = .always,
        structuralSharing: Bool = true, origin: EntryEvent.DataOrigin = .local, expecting: UInt64? = nil
    ) -> (isStored: Bool, isChanged: Bool) {
        let comparison = structuralSharing ? compare(value) : nil
        let output = send(
            .dataSet(value, updatedAt: updatedAt, mode, origin, comparison, expecting: expecting))
        return (output.isStored, output.isChanged)
    }

    /// Replaces the data with `updater(old)` atomically: the updater runs outside the lock, and runs again on
    /// the new data when someone wrote meanwhile. A nil result changes nothing. Returns whether the data
    /// changed, or nil when the entry was removed (it takes no write; the caller writes to the key's next one).
    package func update<T: Sendable>(
        at updatedAt: SchedulerInstant, structuralSharing: Bool, _ updater: (T?) throws -> T?
    ) throws -> Bool? {
        while true {
            if isRemoved { return nil }
            let (data, version) = storage.withLock { ($0.machine.snapshot.data, $0.machine.snapshot.dataVersion) }
            let old: T? = try data.map { try cast($0, to: T.self, key: key) }
            guard let new = try updater(old) else { return false }
            let result = setData(
                new, updatedAt: updatedAt, structuralSharing: structuralSharing, expecting: version)
            if result.isStored { return result.isChanged }
        }
    }

    /// Compares `value` with the current data outside the lock (`==` is a user closure), noting the data's
    /// version so the machine can tell whether the answer still holds.
    func compare(_ value: any Sendable) -> EntryEvent.Comparison {
        let (data, version) = storage.withLock { ($0.machine.snapshot.data, $0.machine.snapshot.dataVersion) }
        return EntryEvent.Comparison(dataVersion: version, isSame: areEqual(data, value))
    }

    /// The answer of the network store's read in flight, or of a new one that `read` makes: the reads of one
    /// entry at once (a restore and the checks of several fetches) make one call.
    func sharedStoreRead(_ read: @escaping @Sendable () async -> CachedValue<any Sendable>?) async -> CachedValue<
        any Sendable
    >? {
        let task = storage.withLock { state in
            if let running = state.storeRead { return running }
            let task = context.tracker.spawn { [self] in
                let stored = await read()
                storage.withLock { storage in
                    storage.storeRead = nil
                    storage.dropEmptyAttachments()
                }
                return stored
            }
            state.storeRead = task
            return task
        }
        return (try? await task.value) ?? nil
    }

    /// `json` decoded as the type the entry persists, or nil when it persists none or it does not decode.
    package func decodeStored(json: String) -> (any Sendable)? {
        storage.withLock { $0.machine.persistence }?.decode(json: json)
    }

    /// Whether the entry has a persistence (a query, a fetch or a write gave it one).
    package var isPersisted: Bool {
        storage.withLock { $0.machine.persistence != nil }
    }

    // MARK: - Observers

    /// Adds an observer (a query or consumer); returns its id.
    package func addObserver(_ observer: EntryObserver) -> UInt64 {
        let id = context.nextID()
        send(.observerAdded(id, observer))
        return id
    }

    /// Replaces what the machine knows of an observer (its options changed).
    package func setObserver(_ id: UInt64, _ observer: EntryObserver) {
        send(.observerChanged(id, observer))
    }

    package func removeObserver(_ id: UInt64) {
        send(.observerRemoved(id))
    }

    /// Asks each enabled observer that takes requests of `request`'s type to refetch with it (a mutation's
    /// `.newData(request)`), as the machine decides.
    package func refetch(withRequest request: any Sendable) {
        send(.refetchWithRequestRequested(request))
    }
}
