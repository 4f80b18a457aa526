/// What an entry's state machine asks of its observers after every event, kept as counts that each observer
/// arriving, changing or leaving updates: no event walks every observer (with 10,000 observers of one key, a
/// walk per event made each write cost 10,000 steps, and adding them all n²).
struct ObserverTally: Sendable {
    /// Observers that are enabled.
    private(set) var enabled = 0
    /// Observers whose `staleTime` is `.static` (invalidation leaves the entry alone).
    private(set) var staticStaleTime = 0
    /// Enabled observers by finite `staleTime`: the distinct freshness windows the staleness timer serves.
    private var staleDurations: [Duration: Int] = [:]

    /// Counts `observer` in (`sign` 1) or out (`sign` -1).
    mutating func count(_ observer: EntryObserver, _ sign: Int) {
        if observer.staleTime == .static { staticStaleTime += sign }
        guard observer.isEnabled else { return }
        enabled += sign
        if case .duration(let duration) = observer.staleTime {
            let count = staleDurations[duration, default: 0] + sign
            staleDurations[duration] = count > 0 ? count : nil
        }
    }

    /// The first instant after `now` at which data updated at `updatedAt` turns stale for an enabled observer.
    func nextStaleness(after updatedAt: SchedulerInstant, now: SchedulerInstant) -> SchedulerInstant? {
        var next: SchedulerInstant?
        for duration in staleDurations.keys where updatedAt + duration > now {
            next = min(next ?? updatedAt + duration, updatedAt + duration)
        }
        return next
    }
}
