/// What an entry's state machine asks of its observers after every event, kept as counts that each observer
/// arriving, changing or leaving updates: no event walks every observer (with 10,000 observers of one key, a
/// walk per event made each write cost 10,000 steps, and adding them all n²).
package struct ObserverTally: Sendable {
    /// A client-wide trigger that refetches through an observer: focus regained, or the network back.
    package enum Trigger: Sendable {
        case focus
        case reconnect
    }

    /// What one enabled observer adds to the counts: the freshness it judges by (its own `staleTime`, or, for
    /// a consumer without one, the fallback it takes while no observer judges), and how each trigger refetches
    /// for it (only observers that can fetch count for the triggers).
    private enum Slot: Hashable, Sendable {
        case freshness(StaleTime, judges: Bool)
        case trigger(Trigger, RefetchTrigger, judgedBy: StaleTime)
    }

    /// How one trigger refetches for an observer that can fetch: what `Staleness.refetchFrom` is asked.
    private struct Refetching: Hashable, Sendable {
        var refetches: RefetchTrigger
        var window: Staleness.Window
    }

    /// Observers that are enabled.
    private(set) var enabled: Int32 = 0
    /// Observers whose own `staleTime` is `.static` (invalidation leaves the entry alone).
    private(set) var staticStaleTime: Int32 = 0
    /// Enabled observers by slot: a handful of distinct slots however many observers there are.
    private var slots: [Slot: Int] = [:]
    /// What the slots say, worked out when they change rather than on each event (every event asks, and
    /// walking a dictionary cost more than the rest of the event). Kept out of line, nil without enabled
    /// observers: an entry nobody observes pays one pointer for it (row (i)).
    private var summaryBox: Boxed<Summary>?

    /// The distinct slots, as the questions each event asks need them.
    private struct Summary: Sendable {
        /// The freshness windows that notify: every judge's (each observer that judges sees the data turn stale
        /// at its own); with no judge, the fallbacks (the observers that inherit judge by the shortest).
        var notifying: [Staleness.Window] = []
        /// The freshness the key is judged by (see `staleTime`).
        var staleTime: StaleTime?
        var focus: [Refetching] = []
        var reconnect: [Refetching] = []
    }

    /// Counts `observer` in (`sign` 1) or out (`sign` -1).
    mutating func count(_ observer: EntryObserver, _ sign: Int) {
        if observer.judgesFreshness, observer.staleTime == .static { staticStaleTime += Int32(sign) }
        guard observer.isEnabled else { return }
        enabled += Int32(sign)
        bump(.freshness(observer.staleTime, judges: observer.judgesFreshness), sign)
        if observer.refetch != nil {
            bump(.trigger(.focus, observer.refetchOnFocus, judgedBy: observer.staleTime), sign)
            bump(.trigger(.reconnect, observer.refetchOnReconnect, judgedBy: observer.staleTime), sign)
        }
        summarise()
    }

    private mutating func bump(_ slot: Slot, _ sign: Int) {
        let count = slots[slot, default: 0] + sign
        slots[slot] = count > 0 ? count : nil
    }

    /// Works the summary out again from the slots.
    private mutating func summarise() {
        var summary = Summary()
        var (judges, fallbacks): ([StaleTime], [StaleTime]) = ([], [])
        for slot in slots.keys {
            switch slot {
            case .freshness(let staleTime, judges: true): judges.append(staleTime)
            case .freshness(let staleTime, judges: false): fallbacks.append(staleTime)
            case .trigger(.focus, let refetches, let staleTime):
                summary.focus.append(Refetching(refetches: refetches, window: Staleness.Window(staleTime)))
            case .trigger(.reconnect, let refetches, let staleTime):
                summary.reconnect.append(Refetching(refetches: refetches, window: Staleness.Window(staleTime)))
            }
        }
        summary.staleTime = (judges.isEmpty ? fallbacks : judges).reduce(nil) { shortest, staleTime in
            shortest.map { StaleTime.shorter($0, staleTime) } ?? staleTime
        }
        summary.notifying = (judges.isEmpty ? fallbacks : judges).map(Staleness.Window.init)
        summaryBox = slots.isEmpty ? nil : Boxed(summary)
    }

    /// The freshness the key is judged by: the shortest `staleTime` among the enabled observers with one of
    /// their own (queries, and consumers given one), so the key is stale as soon as one of them finds it stale;
    /// with none, the shortest fallback (the key's defaults) of the consumers that inherit; nil without enabled
    /// observers. A consumer without a `staleTime` of its own judges by it.
    var staleTime: StaleTime? {
        summaryBox?.value.staleTime
    }

    /// The first instant after `now` at which the data in `snapshot` turns stale for an enabled observer (by
    /// `Staleness.staleFrom`): when the entry tells its observers so.
    func nextStaleness(of snapshot: EntrySnapshot, after now: SchedulerInstant) -> SchedulerInstant? {
        var next: SchedulerInstant?
        guard let summary = summaryBox?.value else { return nil }
        for window in summary.notifying {
            if let instant = Staleness.staleFrom(snapshot, judgedBy: window), instant > now {
                next = min(next ?? instant, instant)
            }
        }
        return next
    }

    /// The first instant from which `trigger` refetches the entry holding `snapshot` through an enabled observer
    /// that can fetch (by `Staleness.refetchFrom`): `Staleness.anyInstant` when it refetches whenever it
    /// comes, nil when it never does until something changes.
    func firstRefetch(on trigger: Trigger, _ snapshot: EntrySnapshot) -> SchedulerInstant? {
        var first: SchedulerInstant?
        guard let summary = summaryBox?.value else { return nil }
        for refetching in trigger == .focus ? summary.focus : summary.reconnect {
            if let instant = Staleness.refetchFrom(refetching.refetches, judgedBy: refetching.window, snapshot) {
                first = min(first ?? instant, instant)
            }
        }
        return first
    }
}
