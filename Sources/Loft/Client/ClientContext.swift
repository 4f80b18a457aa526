import Synchronization

/// What every cache entry of one client shares: the clock and its timer queue, the task tracker, focus and
/// network, the event stream, and the ways back to the client (to be collected, to be found by key). Those
/// reach the client's entry table, not the client, so entries never keep their client alive; the client cuts
/// them when it goes (`unlink()`). No reference to the client is weak: a weakly referenced object takes the
/// runtime's slow path on every retain and release, and the client and its mutation cache are retained on
/// every call.
package final class ClientContext: Sendable {
    package let scheduler: any Scheduler
    /// Reads `scheduler.now`. A closure made once: reading the time through the stored existential copied it
    /// (and released the copy) on every read.
    private let clock: @Sendable () -> SchedulerInstant
    package let timers: TimerQueue<QueryCacheEntry>
    package let tracker: WorkTracker
    package let environment: ClientEnvironment
    package let events: PassthroughSubject<QueryCacheEvent, Never>
    /// What the client's caller changed, for links to other clients (`QueryClient.sharedChanges`).
    package let sharedChanges = PassthroughSubject<SharedChange, Never>()
    /// Writes the entries' values to their persistent caches, behind the callers.
    package let writer: PersistenceWriter
    /// The ways back to the client, set once it exists.
    ///
    /// Kept in a struct on purpose: a lock whose state is a bare function type reabstracts the closure on every
    /// `withLock` and stores it back wrapped in one more thunk, so each read deepened a chain of thunks (after
    /// 100,000 timer sets, releasing the client overflowed the stack).
    private struct Links: Sendable {
        var collect: (@Sendable (QueryCacheEntry) -> Void)?
        var evict: (@Sendable (QueryCacheEntry, EvictionReason) -> Void)?
    }

    private let links: Locked<Links>
    /// The last id given to a waiter, observer or listener of any entry: ids grow in the order they arrive.
    private let ids = Atomic<UInt64>(0)
    /// The entries' costs against the client's memory budget, and which may be evicted; nil without a budget.
    package let ledger: MemoryLedger?

    package init(
        scheduler: any Scheduler, tracker: WorkTracker, events: PassthroughSubject<QueryCacheEvent, Never>,
        budget: MemoryBudget? = nil
    ) {
        ledger = budget.map(MemoryLedger.init)
        let links = Locked(Links())
        self.links = links
        self.scheduler = scheduler
        clock = { scheduler.now }
        self.timers = TimerQueue(scheduler: scheduler)
        self.environment = ClientEnvironment()
        self.tracker = tracker
        self.events = events
        self.writer = PersistenceWriter(tracker: tracker, events: events)
    }

    /// Sends `event` on `events`. The event is made only when someone listens: most clients have no listener,
    /// and an event (a mutation's carries its call's listing) costs more to make and send than to skip. A
    /// listener that subscribes while an event is being made is one that subscribed just after it.
    package func emit(_ event: @autoclosure () -> QueryCacheEvent) {
        HeldLocks.assertNoneHeld("a client's event")
        guard isHeard else { return }
        events.send(event())
    }

    /// A new id of a waiter, an observer or a listener of an entry, greater than every one given before: one
    /// counter for the client, so that an entry keeps none of its own (row (i)).
    package func nextID() -> UInt64 {
        ids.add(1, ordering: .relaxed).newValue
    }

    /// The scheduler's current time.
    package var now: SchedulerInstant { clock() }

    /// Whether anyone listens to `events` now: an event that takes work to make is made only then.
    package var isHeard: Bool {
        events.subscriberCount > 0
    }

    /// Sets what garbage collection calls to remove an unused entry from its client.
    package func setCollector(_ collect: @escaping @Sendable (QueryCacheEntry) -> Void) {
        links.withLock { $0.collect = collect }
    }

    package func collect(_ entry: QueryCacheEntry) {
        links.withLock { $0.collect }?(entry)
    }

    /// Sets what an eviction calls to remove an entry, marked removed already, from its client.
    package func setEvictor(_ evict: @escaping @Sendable (QueryCacheEntry, EvictionReason) -> Void) {
        links.withLock { $0.evict = evict }
    }

    package func evict(_ entry: QueryCacheEntry, _ reason: EvictionReason) {
        links.withLock { $0.evict }?(entry, reason)
    }

    /// Evicts the least recently used idle entries while the client is over its memory budget; reports once
    /// when what may not be evicted exceeds it.
    package func enforceBudget() {
        guard let ledger else { return }
        while true {
            switch ledger.nextStep(towards: ledger.budget.limit, reportsOver: true) {
            case .done: return
            case .evict(let entry): entry.send(.evictionRequested(.budget))
            case .over(let used):
                emit(.overBudget(used: used, limit: ledger.budget.limit))
                return
            }
        }
    }

    /// Drops the ways back to the client (it is gone): they hold its entry table, whose entries hold this
    /// context. Afterwards nothing is collected, and no entry is found by key.
    package func unlink() {
        links.withLock { $0 = Links() }
        ledger?.removeAll()
        timers.dropAllAlarms()
    }
}
