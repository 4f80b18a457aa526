/// The lifecycle of one cache entry as a pure state machine: events in, with the current instant and the
/// client's focus and network, actions out (after swift-async-algorithms). It performs nothing itself:
/// `QueryCacheEntry` holds it behind the lock and performs the actions once the lock is released.
///
/// Every lifecycle rule is decided here, once:
/// - freshness (`isStale`) and whether a request is answered from the cache, joins the fetch in flight,
///   replaces it, starts one, or waits paused for the network, and the reason each fetch records;
/// - what a success, a failure (kept data, the error, invalidation), a cancel (restoring the state from before
///   the fetch unless data was written meanwhile) and a reset (back to the initial data) leave;
/// - which observer a trigger (invalidation, focus, reconnect, a bulk refetch) refetches through, and that a
///   disabled one never is;
/// - what the last observer leaving does to a fetch in flight (its retries stop; a paused first fetch, or one
///   whose fetcher reacts to cancellation, is cancelled);
/// - the deadlines of garbage collection (the longest `gcTime` of the observers, the defaults' while none gave
///   one) and of the next moment the data turns stale;
/// - when the persistent cache is read or written;
/// - that a removed entry takes no event (a caller that reaches it is answered).
///
/// Its actions and outputs are `Equatable`: the tests feed it events with instants and compare what comes out
/// (`EntryStateMachineTableTests`), and walk it through seeded random events against its invariants
/// (`EntryStateMachineModelTests`).
package struct EntryStateMachine: Sendable {
    // MARK: - State

    // Read by the storage; written only by the event handlers (in this file and its extensions).
    // In an order that leaves little padding: every cache entry holds one machine.
    // The change and fetch counters in 4 bytes each, side by side (row (i)): both are only compared for
    // equality, and wrap; a view 2^32 changes behind, or a fetch still in flight 2^32 fetches later, is not a
    // case.
    private var changeNumber: UInt32 = 0
    private var fetchNumber: UInt32 = 0
    /// The fetch in flight, kept out of line: an idle entry pays one pointer for it.
    private var fetchBox: Boxed<Fetch>?
    /// Observers, waiters and what they gave, out of line: none or one, copied on write. Read and written
    /// only through the properties of `EntryStateMachine+Audience.swift`.
    var audienceStorage: [EntryAudience] = []
    /// The `gcTime` of the defaults for the key, to the nanosecond: it applies while no observer gave one.
    /// Packed: 8 bytes instead of 17, which took the entry's state over a malloc size class (row (i)).
    private let packedDefaultGCTime: PackedDuration
    /// The fetcher of the last fetch started (with its settings), to refetch an entry that has no observer that
    /// can.
    var lastFetcher: (any ErasedFetcher)?
    /// The persistent cache, and the data's version in a store that orders the key's changes, out of line
    /// together: both come with a store, and an entry without one pays one pointer for them (row (i)).
    private var storeBox: Boxed<EntryStore>?
    // `collectionDeadline` and `alarm`, in nanoseconds since the epoch, `Int64.max` for none: an optional
    // instant takes 16 bytes in a struct, these 8 each (row (i)).
    private var collectionNanoseconds = Int64.max
    private var alarmNanoseconds = Int64.max
    /// After the 8-byte fields: it ends in one-byte fields, which the next one follows without padding.
    package internal(set) var snapshot = EntrySnapshot()
    /// Last: the one-byte field that ends the machine lets the storage put its own flag in the bytes after it.
    package internal(set) var isRemoved = false

    /// Bumped by every change that observers must hear of.
    package internal(set) var version: UInt64 {
        get { UInt64(changeNumber) }
        set { changeNumber = UInt32(truncatingIfNeeded: newValue) }
    }

    /// The id of the last fetch started (the next one's once bumped).
    var nextFetchID: UInt64 {
        get { UInt64(fetchNumber) }
        set { fetchNumber = UInt32(truncatingIfNeeded: newValue) }
    }

    /// Makes the machine of an entry that nobody observes yet.
    ///
    /// - Parameter gcTime: the `gcTime` of the defaults for the key, which collects the entry until an observer
    ///   gives its own.
    package init(gcTime: GCTime) {
        packedDefaultGCTime = PackedDuration(gcTime: gcTime)
    }

    /// When the entry is collected, unless someone uses it first.
    var collectionDeadline: SchedulerInstant? {
        get { Self.instant(collectionNanoseconds) }
        set { collectionNanoseconds = newValue?.nanosecondsSinceEpoch ?? .max }
    }

    /// The earliest alarm this entry set that has not rung yet (an alarm cannot be moved or cancelled alone: a
    /// deadline that goes or moves later leaves it to ring for nothing; all go with the entry).
    var alarm: SchedulerInstant? {
        get { Self.instant(alarmNanoseconds) }
        set { alarmNanoseconds = newValue?.nanosecondsSinceEpoch ?? .max }
    }

    static func instant(_ nanoseconds: Int64) -> SchedulerInstant? {
        nanoseconds == .max ? nil : SchedulerInstant(nanosecondsSinceEpoch: nanoseconds)
    }

    /// How long the entry stays cached once unused: the longest `gcTime` of its observers, or the defaults' when
    /// none gave one (an entry nobody observed).
    package var gcTime: GCTime {
        observerGCTime ?? defaultGCTime
    }

    /// The `gcTime` of the defaults for the key (to the nanosecond).
    var defaultGCTime: GCTime {
        packedDefaultGCTime.gcTime ?? .infinity
    }

    /// The persistent cache the entry reads and writes, once adopted.
    var persistence: EntryPersistence? {
        storeBox?.value.persistence
    }

    /// The version of the entry's data in a store that orders the key's changes (a shared cache's row,
    /// another instance's value): a value or an invalidation with an older or equal version is ignored.
    var storeVersion: Int64? {
        get { storeBox?.value.version }
        set {
            guard newValue != storeVersion else { return }
            storeBox = Boxed(EntryStore(persistence: persistence, version: newValue))
        }
    }

    /// What the storage must do after an event, and what the event's caller needs to know.
    package struct Output: Sendable, Equatable {
        /// The entry's key, which names the events the machine emits: the entry gives it with each event, so that
        /// the machine keeps no copy of it (row (i)).
        package let key: QueryKey
        package var actions: [EntryAction] = []
        /// `dataSet`: the value was written.
        package var isStored = false
        /// `dataSet`: the data changed (an equal value keeps the old one).
        package var isChanged = false
        /// `readRequested`: the read must start or replace a fetch, or ask the store, and brought no fetcher;
        /// nothing changed, and the entry sends `fetchRequested` with one.
        package var needsFetcher = false
    }

    /// The fetch in flight.
    var fetch: Fetch? {
        get { fetchBox?.value }
        set { fetchBox = newValue.map(Boxed.init) }
    }

    /// Ends the fetch in flight: returns it with its waiters, in the order they came, and leaves none.
    mutating func takeFetch() -> (fetch: Fetch, waiters: [EntryWaiter])? {
        guard let taken = fetch else { return nil }
        fetch = nil
        defer { clearFetchWaiters() }
        return (taken, fetchWaiters)
    }

    /// The id of the fetch in flight, read without copying the fetch out.
    var fetchID: UInt64? {
        fetchBox?.value.id
    }

    /// Whether a fetch is in flight, read without copying the fetch out of its box (a join asks it: row (e)).
    var isFetching: Bool {
        fetchBox != nil
    }

    /// Changes the fetch in flight, if any, in place: the old box goes before the change, so its waiters are
    /// not copied (a join stays O(1) however many callers wait). Returns what `change` returns.
    @discardableResult
    mutating func updateFetch<Result>(_ change: (inout Fetch) -> Result) -> Result? {
        guard var value = fetchBox?.value else { return nil }
        fetchBox = nil
        defer { fetchBox = Boxed(value) }
        return change(&value)
    }

    // MARK: - Events

    package mutating func handle(
        _ event: EntryEvent, of key: QueryKey, at now: SchedulerInstant, conditions: ClientEnvironment.Conditions
    ) -> Output {
        var output = Output(key: key)
        guard !isRemoved else {
            removedEntryTook(event, &output)
            return output
        }
        switch event {
        case .fetchRequested(let request, let intent, let observer, let waiter):
            self.request(
                request.call, fetcher: request.fetcher, intent, observer: observer, waiter: waiter, at: now,
                conditions, &output)
        case .readRequested(let call, let intent, let waiter):
            self.request(call, fetcher: nil, intent, observer: nil, waiter: waiter, at: now, conditions, &output)
        case .storeChecked(let request, let intent, let observer, let waiter, let isValid, let stored):
            storeChecked(request, intent, observer, waiter, isValid, stored, at: now, conditions, &output)
        case .taskCreated(let id, let task, let retryer):
            taskCreated(id, task, retryer, &output)
        case .attemptFailed(let id, let failureCount, let error):
            guard fetchID == id else { break }
            snapshot.failureCount = failureCount
            changed()
            output.actions.append(.emit(.fetchRetrying(output.key, failureCount: failureCount, error: error)))
        case .fetchPaused(let id):
            guard fetchID == id else { break }
            setFetchStatus(.paused, of: id)
            output.actions.append(.emit(.fetchPaused(output.key)))
        case .fetchContinued(let id):
            guard fetchID == id else { break }
            setFetchStatus(.fetching, of: id)
            output.actions.append(.emit(.fetchContinued(output.key)))
        case .fetchSucceeded(let id, let value, let comparison):
            succeed(id, value, comparison, at: now, &output)
        case .fetchFailed(let id, let error, let failureCount):
            fail(id, error, failureCount, at: now, &output)
        case .fallbackLoaded(let id, let error, let failureCount, let stored):
            guard fetchID == id else { break }
            finishFailure(error, failureCount, fallback: stored, at: now, &output)
        case .cancelRequested(let revert):
            cancel(revert: revert, &output)
        case .waiterJoined(let waiter, let skipsPaused):
            join(waiter, skipsPaused: skipsPaused, &output)
        case .waiterLeft(let waiter):
            // A scan: a caller leaving is rare beside callers joining, which append.
            if isFetching, let index = fetchWaiters.firstIndex(of: waiter) {
                fetchWaiters.remove(at: index)
                output.actions.append(.resume([waiter], .failure(CancellationError())))
            }
        case .observerAdded(let id, let observer):
            addObserver(id, observer, &output)
        case .observerChanged(let id, let observer):
            changeObserver(id, observer)
        case .observerRemoved(let id):
            removeObserver(id, &output)
        case .dataSet(let value, let updatedAt, let mode, let origin, let comparison, let expected):
            setData(value, updatedAt, mode, origin, comparison, expected, &output)
        case .invalidated(let refetchType, let version):
            // An invalidation older than the data changes nothing; it leaves the data's version as it is (a
            // value of a version between the two is still the newer value).
            if let version, let held = storeVersion, held >= version { break }
            invalidate(refetchType, at: now, conditions, &output)
        case .refetchRequested(let reason):
            refetchRequested(reason, at: now, conditions, &output)
        case .refetchWithRequestRequested(let request):
            refetchWithRequest(request, &output)
        case .reset:
            reset(at: now, conditions, &output)
        case .removed:
            guard !isRemoved else { break }
            isRemoved = true
            cancel(revert: true, &output)
            changed()
            output.actions.append(.notifyRemoved(observers.compactMap(Self.removalCall)))
        case .evictionRequested(let reason):
            guard isIdle else { break }
            isRemoved = true
            changed()
            output.actions.append(.evict(reason))
        case .persistenceAdopted(let adopted, let restores):
            if persistence == nil { storeBox = Boxed(EntryStore(persistence: adopted, version: storeVersion)) }
            if restores, let persistence = persistence, snapshot.data == nil,
                persistence.config.usagePolicy != .useIfFetchFails
            {
                output.actions.append(.restore(persistence))
            }
        case .focusRegained:
            refetchOnTrigger(reason: .focus, at: now, &output)
        case .reconnected:
            refetchOnTrigger(reason: .reconnect, at: now, &output)
        case .alarmRang(let instant):
            alarmRang(instant, at: now, &output)
        }
        // A read that asks for its fetcher changed nothing: no timer either (its request follows at once).
        if !output.needsFetcher { scheduleTimers(at: now, &output) }
        return output
    }

    /// A removed entry takes no event: nothing changes, nothing starts, no timer is set. A caller that reached
    /// it anyway is answered (a fetch request with `EntryRemovedError`, on which the caller asks the key's next
    /// entry), an observer added to it is told it was removed (it follows its key), and a task made for it is
    /// cancelled.
    private mutating func removedEntryTook(_ event: EntryEvent, _ output: inout Output) {
        switch event {
        case .fetchRequested(_, _, _, let waiter?), .storeChecked(_, _, _, let waiter?, _, _),
            .readRequested(_, _, let waiter):
            output.actions.append(.resume([waiter], .failure(EntryRemovedError())))
        case .waiterJoined(let waiter, _):
            answer(waiter, &output)
        case .taskCreated(_, let task, _):
            output.actions.append(.cancelTask(task))
        case .observerAdded(let id, let observer):
            // Told at once, so that it follows its key to the next entry.
            if let call = Self.removalCall(id, observer) { output.actions.append(.notifyRemoved([call])) }
        default:
            break
        }
    }

    /// How `observer` hears that the entry was removed, if it listens.
    private static func removalCall(_ id: UInt64, _ observer: EntryObserver) -> ObserverCall<Void>? {
        observer.entryRemoved.map { removed in ObserverCall(observer: id) { removed() } }
    }

    // MARK: - Keeping

    /// Whether a caller's `gcTime` leaves the entry's as it is: no longer than what the entry keeps already.
    package func keepsGCTime(_ gcTime: GCTime?) -> Bool {
        guard let gcTime else { return true }
        // While no one gave one, only the defaults' own (compared packed, as precisely as it is kept) leaves it.
        return observerGCTime.map { gcTime <= $0 } ?? (PackedDuration(gcTime: gcTime) == packedDefaultGCTime)
    }

    // MARK: - Actions

    /// Marks a change that observers must hear of (published once per event).
    mutating func changed() {
        version &+= 1
    }

    mutating func setFetchStatus(_ status: FetchStatus, of id: UInt64) {
        guard fetchID == id, snapshot.fetchStatus != status else { return }
        snapshot.fetchStatus = status
        changed()
    }

    /// An alarm rang: the deadlines that are due act (whichever alarm rang; a ring with nothing due does
    /// nothing).
    private mutating func alarmRang(_ instant: SchedulerInstant, at now: SchedulerInstant, _ output: inout Output) {
        if alarm == instant { alarm = nil }
        if let deadline = collectionDeadline, deadline <= now {
            if isIdle {
                // Removed at once, as an eviction is: a caller that reaches the entry before the client has taken
                // it out of its table is sent to the key's next entry, instead of starting a fetch here that the
                // removal would cancel.
                isRemoved = true
                changed()
                output.actions.append(.collect)
            } else {
                collectionDeadline = nil
            }
        }
        if let deadline = stalenessDeadline, deadline <= now {
            stalenessDeadline = nil
            changed()
        }
    }

    /// Sets, moves or drops the garbage-collection and staleness deadlines after every event, and sets an alarm
    /// when the next one is earlier than the alarm waiting.
    private mutating func scheduleTimers(at now: SchedulerInstant, _ output: inout Output) {
        if isIdle {
            if collectionDeadline == nil, case .duration(let duration) = gcTime {
                collectionDeadline = now + duration
            }
        } else {
            collectionDeadline = nil
        }
        stalenessDeadline = nil
        if !isRemoved { stalenessDeadline = readTally { $0.nextStaleness(of: snapshot, after: now) } ?? nil }
        dropEmptyAudience()
        let next =
            switch (collectionDeadline, stalenessDeadline) {
            case (let collection?, let staleness?): min(collection, staleness)
            case (let collection, let staleness): collection ?? staleness
            }
        if let next, alarm.map({ next < $0 }) ?? true {
            alarm = next
            output.actions.append(.setAlarm(next))
        }
    }
}
