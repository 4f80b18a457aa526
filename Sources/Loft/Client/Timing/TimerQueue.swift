/// Names one timer of a `TimerQueue` (from `makeKey()`): setting it again moves it.
package struct TimerKey: Hashable, Sendable {
    let id: UInt64
}

/// What an alarm of a `TimerQueue` wakes: a cache entry.
package protocol AlarmOwner: AnyObject, Sendable {
    /// One of the owner's alarms is due: called with its instant, with no lock held.
    func alarmRang(_ instant: SchedulerInstant)
}

/// The one timer queue of a client: deadlines on the client's scheduler, carrying every garbage-collection,
/// staleness, polling and retry deadline.
///
/// It holds two kinds of deadline, in a min-heap each:
/// - a *timer* (polling, retries: few at a time) runs a closure; it is named by a `TimerKey`, and setting it
///   again moves it, cancelling it drops it;
/// - an *alarm* (an entry's garbage collection and staleness: one per entry, so 100,000 for a large cache) is
///   data only: the instant and the entry to wake, 16 bytes. It cannot be moved: the entry keeps its true
///   deadlines, takes a ring as "look at your deadlines now", and sets a new alarm only when its next deadline
///   is earlier than the one it set (so each entry has at most one alarm waiting, plus one per deadline that
///   moved earlier).
///
/// An alarm holds its owner, so it rings the owner itself, with no lookup. That is a cycle (the entry holds
/// the client's context, which holds the queue), cut by `dropAllAlarms()` when the client goes, and by each
/// alarm ringing. A removed entry's alarms are dropped together (`dropAlarms(of:)`): the owner is listed (and
/// held, so that no new entry takes its address before the sweep), its alarms are skipped when they come up,
/// and once the listed owners reach a quarter of the alarms they are swept out of the heap in one pass, so a
/// cache whose keys churn (a service evicting under its memory budget) does not keep an alarm, and its entry,
/// for every key it let go.
///
/// **Behavior**
/// - At most one block is scheduled on the scheduler at a time, for the earliest deadline; a timer set, moved
///   or cancelled changes the heap, not the scheduler (a cancelled or moved deadline is dropped when it comes
///   up).
/// - Due deadlines fire in deadline order with no lock held: among equal deadlines, alarms first, then timers,
///   first set first; a timer set while firing, and due already, fires in the same turn.
/// - A timer is named by its key: setting it again moves it.
/// - No owner is released, and no timer's closure, while the queue's lock is held.
package final class TimerQueue<Owner: AlarmOwner>: Sendable {
    /// One timer's deadline in its heap.
    struct Deadline: Comparable, Sendable {
        let instant: SchedulerInstant
        let sequence: UInt64
        let key: TimerKey

        static func < (lhs: Deadline, rhs: Deadline) -> Bool {
            (lhs.instant, lhs.sequence) < (rhs.instant, rhs.sequence)
        }

        static func == (lhs: Deadline, rhs: Deadline) -> Bool {
            lhs.sequence == rhs.sequence
        }
    }

    /// One alarm in its heap: 16 bytes, one per entry (row (i)).
    struct Alarm: Comparable, Sendable {
        let instant: SchedulerInstant
        let owner: Owner

        static func < (lhs: Alarm, rhs: Alarm) -> Bool {
            lhs.instant < rhs.instant
        }

        static func == (lhs: Alarm, rhs: Alarm) -> Bool {
            lhs.instant == rhs.instant && lhs.owner === rhs.owner
        }
    }

    private struct Timer: Sendable {
        let sequence: UInt64
        let action: @Sendable () -> Void
    }

    private struct State: Sendable {
        var timerHeap = Heap<Deadline>()
        var alarmHeap = Heap<Alarm>()
        var timers: [TimerKey: Timer] = [:]
        /// The owners whose alarms were dropped since the last sweep, held until it.
        var dropped: [ObjectIdentifier: Owner] = [:]
        var nextSequence: UInt64 = 0
        var nextKey: UInt64 = 0
        /// The deadline the scheduler will wake us at, its generation, and its token once scheduled.
        var wake: (instant: SchedulerInstant, generation: UInt64, token: (any Cancellable)?)?
        var wakeGeneration: UInt64 = 0

        /// The earliest deadline of either heap.
        var earliest: SchedulerInstant? {
            switch (alarmHeap.min?.instant, timerHeap.min?.instant) {
            case (let alarm?, let timer?): min(alarm, timer)
            case (let alarm, let timer): alarm ?? timer
            }
        }
    }

    private let scheduler: any Scheduler
    private let state = Locked(State())

    /// Makes a queue on `scheduler`.
    package init(scheduler: any Scheduler) {
        self.scheduler = scheduler
    }

    /// A queue that goes (with its client) leaves nothing scheduled.
    deinit {
        state.withLock { $0.wake?.token }?.cancel()
    }

    /// A new timer's key, unlike every other.
    package func makeKey() -> TimerKey {
        state.withLock { state in
            state.nextKey += 1
            return TimerKey(id: state.nextKey)
        }
    }

    /// How many timers are set and alarms wait (a dropped alarm counts until it is swept out or comes up).
    package var count: Int {
        state.withLock { $0.timers.count + $0.alarmHeap.count }
    }

    /// Sets the timer `key` to run `action` at `instant` (moving it if it was set), or cancels it when `instant`
    /// is nil.
    package func set(_ key: TimerKey, at instant: SchedulerInstant?, _ action: @escaping @Sendable () -> Void) {
        guard let instant else { return cancel(key) }
        // The replaced timer comes out of the lock, so that its closure is released once the lock is.
        let (wake, _) = state.withLock { state -> (Wake?, Timer?) in
            state.nextSequence += 1
            let replaced = state.timers.updateValue(Timer(sequence: state.nextSequence, action: action), forKey: key)
            state.timerHeap.insert(Deadline(instant: instant, sequence: state.nextSequence, key: key))
            return (nextWake(&state), replaced)
        }
        schedule(wake)
    }

    /// Rings `owner` at `instant` (`alarmRang(_:)`), unless its alarms are dropped meanwhile.
    package func setAlarm(for owner: Owner, at instant: SchedulerInstant) {
        let wake = state.withLock { state -> Wake? in
            state.alarmHeap.insert(Alarm(instant: instant, owner: owner))
            return nextWake(&state)
        }
        schedule(wake)
    }

    /// Drops every alarm `owner` set that has not rung: none of them rings. O(1) amortised: the heap is swept
    /// once the dropped owners reach a quarter of the alarms (and at least 64).
    package func dropAlarms(of owner: Owner) {
        // The swept owners come out of the lock and go once it is released: an entry's last release may run user
        // code (its fetcher's captures), which may set a timer.
        _ = state.withLock { state -> [ObjectIdentifier: Owner] in
            guard !state.alarmHeap.isEmpty else { return [:] }
            state.dropped[ObjectIdentifier(owner)] = owner
            guard state.dropped.count >= max(64, state.alarmHeap.count / 4) else { return [:] }
            return sweep(&state)
        }
    }

    /// Drops every alarm (the client goes: this cuts the cycle its entries' alarms make).
    package func dropAllAlarms() {
        // The owners come out of the lock and go once it is released (as in `dropAlarms(of:)`).
        _ = state.withLock { state -> (Heap<Alarm>, [ObjectIdentifier: Owner]) in
            defer { (state.alarmHeap, state.dropped) = (Heap(), [:]) }
            return (state.alarmHeap, state.dropped)
        }
    }

    /// Removes the dropped owners' alarms from the heap, and returns the owners to release.
    private func sweep(_ state: inout State) -> [ObjectIdentifier: Owner] {
        let dropped = state.dropped
        state.alarmHeap.removeAll { dropped[ObjectIdentifier($0.owner)] != nil }
        state.dropped = [:]
        return dropped
    }

    /// Cancels the timer `key`, if set; with no timer and no alarm left, the wake-up goes too (nothing stays
    /// pending on the scheduler).
    package func cancel(_ key: TimerKey) {
        // The removed timer comes out of the lock, so that its closure is released once the lock is.
        let (wake, _) = state.withLock { state -> ((any Cancellable)?, Timer?) in
            let removed = state.timers.removeValue(forKey: key)
            guard removed != nil, state.timers.isEmpty, state.alarmHeap.isEmpty, let wake = state.wake else {
                return (nil, removed)
            }
            state.wake = nil
            state.timerHeap = Heap()
            return (wake.token, removed)
        }
        wake?.cancel()
    }

    /// A wake-up to schedule once the lock is released, and the one it replaces.
    private struct Wake {
        let instant: SchedulerInstant
        let generation: UInt64
        let replaced: (any Cancellable)?
    }

    /// Records a wake-up for the earliest live deadline when it is earlier than the one scheduled.
    private func nextWake(_ state: inout State) -> Wake? {
        dropCancelled(&state)
        guard let first = state.earliest else { return nil }
        if let wake = state.wake, wake.instant <= first { return nil }
        let replaced = state.wake?.token
        state.wakeGeneration += 1
        state.wake = (first, state.wakeGeneration, nil)
        return Wake(instant: first, generation: state.wakeGeneration, replaced: replaced)
    }

    /// Schedules `wake` on the scheduler (no lock held), then records its token unless it was replaced or
    /// fired meanwhile.
    private func schedule(_ wake: Wake?) {
        guard let wake else { return }
        wake.replaced?.cancel()
        let delay = scheduler.now.duration(to: wake.instant)
        let token = scheduler.schedule(after: delay) { [weak self] in self?.fire(wake.generation) }
        let isCurrent = state.withLock { state -> Bool in
            guard state.wake?.generation == wake.generation else { return false }
            state.wake?.token = token
            return true
        }
        if !isCurrent { token.cancel() }
    }

    /// Drops the cancelled and moved timers, and the dropped owners' alarms, from the tops of the heaps (the
    /// dropped owners are held until the sweep: none is released here).
    private func dropCancelled(_ state: inout State) {
        while let first = state.timerHeap.min, state.timers[first.key]?.sequence != first.sequence {
            _ = state.timerHeap.popMin()
        }
        while let first = state.alarmHeap.min, state.dropped[ObjectIdentifier(first.owner)] != nil {
            _ = state.alarmHeap.popMin()
        }
    }

    /// What is due, to run once the lock is released.
    private enum Due {
        case timer(@Sendable () -> Void)
        case alarm(Owner, SchedulerInstant)
    }

    private func fire(_ generation: UInt64) {
        let now = scheduler.now
        let isCurrent = state.withLock { state -> Bool in
            guard state.wake?.generation == generation else { return false }
            state.wake = nil
            return true
        }
        guard isCurrent else { return }
        while true {
            let due = state.withLock { state -> Due? in
                dropCancelled(&state)
                if let alarm = state.alarmHeap.min, alarm.instant <= now,
                    state.timerHeap.min.map({ alarm.instant <= $0.instant }) ?? true
                {
                    _ = state.alarmHeap.popMin()
                    return .alarm(alarm.owner, alarm.instant)
                }
                guard let first = state.timerHeap.min, first.instant <= now else { return nil }
                _ = state.timerHeap.popMin()
                return state.timers.removeValue(forKey: first.key).map { .timer($0.action) }
            }
            switch due {
            case .timer(let action): action()
            case .alarm(let owner, let instant): owner.alarmRang(instant)
            case nil: break
            }
            guard due != nil else { break }
        }
        schedule(state.withLock { nextWake(&$0) })
    }
}
