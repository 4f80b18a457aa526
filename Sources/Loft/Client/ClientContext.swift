/// What every cache entry of one client shares: the clock and its timer queue, the task tracker, focus and
/// network, the event stream, and the way back to the client to be collected. It holds the client weakly, so
/// entries never keep their client alive.
package final class ClientContext: Sendable {
    package let scheduler: any Scheduler
    package let timers: TimerQueue
    package let tracker: WorkTracker
    package let environment: ClientEnvironment
    package let events: PassthroughSubject<QueryCacheEvent, Never>
    private let collector: Locked<(@Sendable (QueryCacheEntry) -> Void)?>

    package init(
        scheduler: any Scheduler, tracker: WorkTracker, events: PassthroughSubject<QueryCacheEvent, Never>
    ) {
        self.scheduler = scheduler
        self.timers = TimerQueue(scheduler: scheduler)
        self.environment = ClientEnvironment()
        self.tracker = tracker
        self.events = events
        self.collector = Locked(nil)
    }

    /// Sets what garbage collection calls to remove an unused entry from its client.
    package func setCollector(_ collect: @escaping @Sendable (QueryCacheEntry) -> Void) {
        collector.withLock { $0 = collect }
    }

    package func collect(_ entry: QueryCacheEntry) {
        collector.withLock { $0 }?(entry)
    }
}
