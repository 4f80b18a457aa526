/// What every cache entry of one client shares: the clock and its timer queue, the task tracker, focus and
/// network, the event stream, and the ways back to the client (to be collected, to be found by key). It holds
/// the client weakly, so entries never keep their client alive.
package final class ClientContext: Sendable {
    package let scheduler: any Scheduler
    package let timers: TimerQueue
    package let tracker: WorkTracker
    package let environment: ClientEnvironment
    package let events: PassthroughSubject<QueryCacheEvent, Never>
    private let collector: Locked<(@Sendable (QueryCacheEntry) -> Void)?>
    private let finder: Locked<(@Sendable (QueryKey) -> QueryCacheEntry?)?>

    package init(
        scheduler: any Scheduler, tracker: WorkTracker, events: PassthroughSubject<QueryCacheEvent, Never>
    ) {
        self.scheduler = scheduler
        self.timers = TimerQueue(scheduler: scheduler)
        self.environment = ClientEnvironment()
        self.tracker = tracker
        self.events = events
        self.collector = Locked(nil)
        self.finder = Locked(nil)
    }

    /// Sets what garbage collection calls to remove an unused entry from its client.
    package func setCollector(_ collect: @escaping @Sendable (QueryCacheEntry) -> Void) {
        collector.withLock { $0 = collect }
    }

    package func collect(_ entry: QueryCacheEntry) {
        collector.withLock { $0 }?(entry)
    }

    /// Sets how an entry is found by key (the client's entries, which it holds weakly).
    package func setFinder(_ find: @escaping @Sendable (QueryKey) -> QueryCacheEntry?) {
        finder.withLock { $0 = find }
    }

    /// How a timer finds its entry again when it fires: by key, then by identity. A timer holds no reference to
    /// its entry, strong (a cycle through the timer queue) or weak (a weak reference puts every retain and
    /// release of the entry on the runtime's slow path).
    package func finder(for entry: QueryCacheEntry) -> @Sendable () -> QueryCacheEntry? {
        let (key, identity) = (entry.key, ObjectIdentifier(entry))
        let find = finder.withLock { $0 }
        return {
            guard let found = find?(key), ObjectIdentifier(found) == identity else { return nil }
            return found
        }
    }
}
