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
    /// a consumer without one, the fallback it takes while no observer judges), and what each trigger does for
    /// it (only observers that can fetch count for the triggers).
    private enum Slot: Hashable, Sendable {
        case freshness(StaleTime, judges: Bool)
        case always(Trigger)
        case ifStale(Trigger, StaleTime)
    }

    /// Observers that are enabled.
    private(set) var enabled: Int32 = 0
    /// Observers whose own `staleTime` is `.static` (invalidation leaves the entry alone).
    private(set) var staticStaleTime: Int32 = 0
    /// Enabled observers by slot: a handful of distinct slots however many observers there are.
    private var slots: [Slot: Int] = [:]
    /// What the slots say, worked out when they change rather than on each event (every event asks, and
    /// walking a dictionary and converting `Duration`s to nanoseconds cost more than the rest of the event).
    private var summary = Summary()

    /// The slots, as the questions each event asks need them.
    private struct Summary: Sendable {
        /// The distinct freshness windows in nanoseconds the enabled observers judge by, shortest first.
        var staleness: [Int64] = []
        /// The freshness the key is judged by (see `staleTime`).
        var staleTime: StaleTime?
        var focus = TriggerSummary()
        var reconnect = TriggerSummary()

        subscript(trigger: Trigger) -> TriggerSummary {
            get { trigger == .focus ? focus : reconnect }
            set {
                if trigger == .focus { focus = newValue } else { reconnect = newValue }
            }
        }
    }

    /// What one trigger does through the observers that can fetch.
    private struct TriggerSummary: Sendable {
        /// An observer refetches on it whatever the staleness (`.always`).
        var always = false
        /// An observer refetches on it when stale (`.ifStale`), whatever its `staleTime`.
        var ifStale = false
        /// Such an observer's `staleTime` is not `.static`: invalidation makes the entry stale for it.
        var ifStaleInvalidates = false
        /// The shortest freshness window in nanoseconds among them (nil: none has a duration).
        var shortest: Int64?
    }

    /// Counts `observer` in (`sign` 1) or out (`sign` -1).
    mutating func count(_ observer: EntryObserver, _ sign: Int) {
        if observer.judgesFreshness, observer.staleTime == .static { staticStaleTime += Int32(sign) }
        guard observer.isEnabled else { return }
        enabled += Int32(sign)
        bump(.freshness(observer.staleTime, judges: observer.judgesFreshness), sign)
        if observer.refetch != nil {
            count(.focus, observer.refetchOnFocus, observer.staleTime, sign)
            count(.reconnect, observer.refetchOnReconnect, observer.staleTime, sign)
        }
        summarise()
    }

    private mutating func count(_ trigger: Trigger, _ refetches: RefetchTrigger, _ staleTime: StaleTime, _ sign: Int) {
        switch refetches {
        // `.static` data is refetched by no trigger, `.always` included: only its missing data is.
        case .always where staleTime == .static: bump(.ifStale(trigger, staleTime), sign)
        case .always: bump(.always(trigger), sign)
        case .ifStale: bump(.ifStale(trigger, staleTime), sign)
        case .never: break
        }
    }

    private mutating func bump(_ slot: Slot, _ sign: Int) {
        let count = slots[slot, default: 0] + sign
        slots[slot] = count > 0 ? count : nil
    }

    /// Works the summary out again from the slots.
    private mutating func summarise() {
        var summary = Summary()
        var judged: StaleTime?
        var fallback: StaleTime?
        for slot in slots.keys {
            switch slot {
            case .freshness(let staleTime, let judges):
                if judges {
                    judged = judged.map { StaleTime.shorter($0, staleTime) } ?? staleTime
                } else {
                    fallback = fallback.map { StaleTime.shorter($0, staleTime) } ?? staleTime
                }
            case .always(let trigger):
                summary[trigger].always = true
            case .ifStale(let trigger, let staleTime):
                summary[trigger].ifStale = true
                switch staleTime {
                case .duration(let duration):
                    summary[trigger].ifStaleInvalidates = true
                    summary[trigger].shortest = min(summary[trigger].shortest ?? .max, duration.nanoseconds)
                case .infinity:
                    summary[trigger].ifStaleInvalidates = true
                case .static:
                    break
                }
            }
        }
        summary.staleTime = judged ?? fallback
        // Every judge's window notifies (each observer that judges sees the data turn stale at its own); the
        // observers that inherit judge by the shortest, which is among them.
        for case .freshness(.duration(let duration), let judges) in slots.keys where judges || judged == nil {
            summary.staleness.append(duration.nanoseconds)
        }
        summary.staleness.sort()
        self.summary = summary
    }

    /// The freshness the key is judged by: the shortest `staleTime` among the enabled observers with one of
    /// their own (queries, and consumers given one), so the key is stale as soon as one of them finds it stale;
    /// with none, the shortest fallback (the key's defaults) of the consumers that inherit; nil without enabled
    /// observers. A consumer without a `staleTime` of its own judges by it.
    var staleTime: StaleTime? {
        summary.staleTime
    }

    /// The first instant after `now` at which data updated at `updatedAt` turns stale for an enabled observer.
    func nextStaleness(after updatedAt: SchedulerInstant, now: SchedulerInstant) -> SchedulerInstant? {
        for window in summary.staleness {
            let instant = updatedAt.advanced(byNanoseconds: window)
            if instant > now { return instant }
        }
        return nil
    }

    /// The instant before every other: a trigger refetches whenever it comes.
    static let anyInstant = SchedulerInstant(nanosecondsSinceEpoch: .min)

    /// The first instant from which `trigger` refetches the entry holding `snapshot` through an enabled observer
    /// that can fetch (the staleness rule of `EntryStateMachine.isStale`, per slot): `anyInstant` when it
    /// refetches whenever it comes, nil when it never does until something changes.
    func firstRefetch(on trigger: Trigger, _ snapshot: EntrySnapshot) -> SchedulerInstant? {
        let summary = summary[trigger]
        if summary.always { return Self.anyInstant }
        guard summary.ifStale else { return nil }
        // With no data, every observer's data is stale, whatever its `staleTime`.
        guard snapshot.data != nil, let updatedAt = snapshot.dataUpdatedAt else { return Self.anyInstant }
        if snapshot.isInvalidated { return summary.ifStaleInvalidates ? Self.anyInstant : nil }
        return summary.shortest.map { updatedAt.advanced(byNanoseconds: $0) }
    }
}
