/// What an entry's state machine asks of its observers after every event, kept as counts that each observer
/// arriving, changing or leaving updates: no event walks every observer (with 10,000 observers of one key, a
/// walk per event made each write cost 10,000 steps, and adding them all n²).
package struct ObserverTally: Sendable {
    /// A client-wide trigger that refetches through an observer: focus regained, or the network back.
    package enum Trigger: Sendable {
        case focus
        case reconnect
    }

    /// What one enabled observer adds to the counts: the freshness window it waits on, and what each trigger
    /// does for it (only observers that can fetch count for the triggers).
    private enum Slot: Hashable, Sendable {
        case staleness(Duration)
        case always(Trigger)
        case ifStale(Trigger, StaleTime)
    }

    /// Observers that are enabled.
    private(set) var enabled: Int32 = 0
    /// Observers whose `staleTime` is `.static` (invalidation leaves the entry alone).
    private(set) var staticStaleTime: Int32 = 0
    /// Enabled observers by slot: a handful of distinct slots however many observers there are.
    private var slots: [Slot: Int] = [:]

    /// Counts `observer` in (`sign` 1) or out (`sign` -1).
    mutating func count(_ observer: EntryObserver, _ sign: Int) {
        if observer.staleTime == .static { staticStaleTime += Int32(sign) }
        guard observer.isEnabled else { return }
        enabled += Int32(sign)
        if case .duration(let duration) = observer.staleTime { bump(.staleness(duration), sign) }
        guard observer.refetch != nil else { return }
        count(.focus, observer.refetchOnFocus, observer.staleTime, sign)
        count(.reconnect, observer.refetchOnReconnect, observer.staleTime, sign)
    }

    private mutating func count(_ trigger: Trigger, _ refetches: RefetchTrigger, _ staleTime: StaleTime, _ sign: Int) {
        switch refetches {
        case .always: bump(.always(trigger), sign)
        case .ifStale: bump(.ifStale(trigger, staleTime), sign)
        case .never: break
        }
    }

    private mutating func bump(_ slot: Slot, _ sign: Int) {
        let count = slots[slot, default: 0] + sign
        slots[slot] = count > 0 ? count : nil
    }

    /// The first instant after `now` at which data updated at `updatedAt` turns stale for an enabled observer.
    func nextStaleness(after updatedAt: SchedulerInstant, now: SchedulerInstant) -> SchedulerInstant? {
        var next: SchedulerInstant?
        for case .staleness(let duration) in slots.keys where updatedAt + duration > now {
            next = min(next ?? updatedAt + duration, updatedAt + duration)
        }
        return next
    }

    /// The instant before every other: a trigger refetches whenever it comes.
    static let anyInstant = SchedulerInstant(nanosecondsSinceEpoch: .min)

    /// The first instant from which `trigger` refetches the entry holding `snapshot` through an enabled observer
    /// that can fetch (the staleness rule of `EntryStateMachine.isStale`, per slot): `anyInstant` when it
    /// refetches whenever it comes, nil when it never does until something changes.
    func firstRefetch(on trigger: Trigger, _ snapshot: EntrySnapshot) -> SchedulerInstant? {
        var first: SchedulerInstant?
        for slot in slots.keys {
            let instant: SchedulerInstant?
            switch slot {
            case .always(let slotTrigger) where slotTrigger == trigger:
                instant = Self.anyInstant
            case .ifStale(let slotTrigger, let staleTime) where slotTrigger == trigger:
                instant = Self.firstStaleness(of: snapshot, staleTime: staleTime)
            default:
                instant = nil
            }
            if let instant { first = min(first ?? instant, instant) }
        }
        return first
    }

    /// The first instant at which `snapshot` is stale for an enabled observer with `staleTime`.
    private static func firstStaleness(of snapshot: EntrySnapshot, staleTime: StaleTime) -> SchedulerInstant? {
        guard snapshot.data != nil, let updatedAt = snapshot.dataUpdatedAt else { return anyInstant }
        if staleTime == .static { return nil }
        return snapshot.isInvalidated ? anyInstant : staleTime.deadline(after: updatedAt)
    }
}
