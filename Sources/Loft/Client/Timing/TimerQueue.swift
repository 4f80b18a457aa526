/// The one timer queue of a client: a min-heap of deadlines on the client's scheduler, carrying every
/// garbage-collection, staleness, polling and retry deadline.
///
/// It holds two kinds of deadline:
/// - a *timer* (polling, retries: few at a time) runs a closure; it is named by a `Key`, and setting it again
///   moves it, cancelling it drops it;
/// - an *alarm* (an entry's garbage collection and staleness: one per entry, so 100,000 for a large cache) is
///   data only, the key and id of the entry to wake: no closure, no table slot, one heap element. It cannot be
///   moved: the entry keeps its true deadlines, takes a ring as "look at your deadlines now", and sets a new
///   alarm only when its next deadline is earlier than the one it set (so each entry has at most one alarm
///   waiting, plus one per deadline that moved earlier). A removed entry's alarms are dropped together
///   (`dropAlarms(of:)`): its id is listed, its alarms are skipped when they come up, and once the listed ids
///   reach half the alarms they are swept out of the heap in one pass, so a cache whose keys churn (a service
///   evicting under its memory budget) does not keep an alarm, and its key, for every key it let go.
///
/// **Behavior**
/// - At most one block is scheduled on the scheduler at a time, for the earliest deadline; a timer set, moved
///   or cancelled changes the heap, not the scheduler (a cancelled or moved deadline is dropped when it comes
///   up).
/// - Due timers fire in deadline order, first set first among equal deadlines, with no lock held; a timer
///   set while firing, and due already, fires in the same turn.
/// - A timer is named by its key: setting it again moves it.
package final class TimerQueue: Sendable {
    /// Names one timer (from `makeKey()`): setting it again moves it.
    package struct Key: Hashable, Sendable {
        let id: UInt64
    }

    /// What a deadline wakes.
    enum Target: Sendable {
        case timer(Key)
        case alarm(QueryKey, owner: UInt64)
    }

    /// One deadline in the heap: 40 bytes, not the 48 a `Target` field takes (its enum's tag after 24 bytes of
    /// payload), one per entry (row (i)).
    struct Deadline: Comparable, Sendable {
        let instant: SchedulerInstant
        let sequence: UInt64
        /// The key to ring for an alarm; nil for a timer.
        private let alarmKey: QueryKey?
        /// The alarm's owner, or the timer's key.
        private let id: UInt64

        init(instant: SchedulerInstant, sequence: UInt64, target: Target) {
            self.instant = instant
            self.sequence = sequence
            switch target {
            case .timer(let key): (alarmKey, id) = (nil, key.id)
            case .alarm(let key, let owner): (alarmKey, id) = (key, owner)
            }
        }

        var target: Target {
            alarmKey.map { .alarm($0, owner: id) } ?? .timer(Key(id: id))
        }

        static func < (lhs: Deadline, rhs: Deadline) -> Bool {
            (lhs.instant, lhs.sequence) < (rhs.instant, rhs.sequence)
        }

        static func == (lhs: Deadline, rhs: Deadline) -> Bool {
            lhs.sequence == rhs.sequence
        }
    }

    private struct Timer: Sendable {
        let sequence: UInt64
        let action: @Sendable () -> Void
    }

    private struct State: Sendable {
        var heap = Heap<Deadline>()
        var timers: [Key: Timer] = [:]
        /// Alarms in the heap, counting the dropped ones not swept out yet.
        var alarms = 0
        /// The owners whose alarms were dropped since the last sweep.
        var dropped: Set<UInt64> = []
        /// `alarms` after the last sweep: the next sweeps once `dropped` reaches half of it.
        var alarmsAfterSweep = 0
        var nextSequence: UInt64 = 0
        var nextKey: UInt64 = 0
        /// The deadline the scheduler will wake us at, its generation, and its token once scheduled.
        var wake: (instant: SchedulerInstant, generation: UInt64, token: (any Cancellable)?)?
        var wakeGeneration: UInt64 = 0
    }

    private let scheduler: any Scheduler
    private let state = Locked(State())
    /// Called with an alarm's key and instant when it rings.
    private let ring: @Sendable (QueryKey, SchedulerInstant) -> Void

    /// Makes a queue on `scheduler` whose alarms call `ring` with their key and instant (none by default).
    package init(
        scheduler: any Scheduler, ring: @escaping @Sendable (QueryKey, SchedulerInstant) -> Void = { _, _ in }
    ) {
        self.scheduler = scheduler
        self.ring = ring
    }

    /// A queue that goes (with its client) leaves nothing scheduled.
    deinit {
        state.withLock { $0.wake?.token }?.cancel()
    }

    /// A new timer's key, unlike every other.
    package func makeKey() -> Key {
        state.withLock { state in
            state.nextKey += 1
            return Key(id: state.nextKey)
        }
    }

    /// How many timers are set and alarms wait (a dropped alarm counts until it is swept out or comes up).
    package var count: Int {
        state.withLock { $0.timers.count + $0.alarms }
    }

    /// Sets the timer `key` to run `action` at `instant` (moving it if it was set), or cancels it when `instant`
    /// is nil.
    package func set(_ key: Key, at instant: SchedulerInstant?, _ action: @escaping @Sendable () -> Void) {
        guard let instant else { return cancel(key) }
        let wake = state.withLock { state -> Wake? in
            state.nextSequence += 1
            state.timers[key] = Timer(sequence: state.nextSequence, action: action)
            state.heap.insert(Deadline(instant: instant, sequence: state.nextSequence, target: .timer(key)))
            return nextWake(&state)
        }
        schedule(wake)
    }

    /// Rings `key` at `instant`: the queue's `ring` is called with both then, unless `owner`'s alarms were
    /// dropped meanwhile.
    ///
    /// - Parameter owner: the id of the entry that sets the alarm, unique for the queue's life (an id is never
    ///   reused: a new owner's alarms are never taken for a dropped one's).
    package func setAlarm(for key: QueryKey, owner: UInt64, at instant: SchedulerInstant) {
        let wake = state.withLock { state -> Wake? in
            state.nextSequence += 1
            state.alarms += 1
            state.heap.insert(
                Deadline(instant: instant, sequence: state.nextSequence, target: .alarm(key, owner: owner)))
            return nextWake(&state)
        }
        schedule(wake)
    }

    /// Drops every alarm `owner` set that has not rung: none of them rings. O(1) amortised: the heap is swept
    /// once the dropped owners reach half the alarms it held after the last sweep (and at least 64).
    package func dropAlarms(of owner: UInt64) {
        state.withLock { state in
            guard state.alarms > 0 else { return }
            state.dropped.insert(owner)
            if state.dropped.count >= max(64, state.alarmsAfterSweep / 2) { sweep(&state) }
        }
    }

    /// Removes the dropped owners' alarms from the heap.
    private func sweep(_ state: inout State) {
        let dropped = state.dropped
        let before = state.heap.count
        state.heap.removeAll { deadline in
            guard case .alarm(_, let owner) = deadline.target else { return false }
            return dropped.contains(owner)
        }
        state.alarms -= before - state.heap.count
        state.alarmsAfterSweep = state.alarms
        state.dropped = []
    }

    /// Cancels the timer `key`, if set; with no timer and no alarm left, the wake-up goes too (nothing stays
    /// pending on the scheduler).
    package func cancel(_ key: Key) {
        let wake = state.withLock { state -> (any Cancellable)? in
            guard state.timers.removeValue(forKey: key) != nil, state.timers.isEmpty, state.alarms == 0,
                let wake = state.wake
            else {
                return nil
            }
            state.wake = nil
            state.heap = Heap()
            state.dropped = []
            return wake.token
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
        guard let first = state.heap.min else { return nil }
        if let wake = state.wake, wake.instant <= first.instant { return nil }
        let replaced = state.wake?.token
        state.wakeGeneration += 1
        state.wake = (first.instant, state.wakeGeneration, nil)
        return Wake(instant: first.instant, generation: state.wakeGeneration, replaced: replaced)
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

    /// Drops the cancelled and moved timers, and the dropped alarms, from the top of the heap.
    private func dropCancelled(_ state: inout State) {
        while let first = state.heap.min {
            switch first.target {
            case .timer(let key):
                guard state.timers[key]?.sequence != first.sequence else { return }
            case .alarm(_, let owner):
                guard state.dropped.contains(owner) else { return }
                state.alarms -= 1
            }
            _ = state.heap.popMin()
        }
    }

    /// What is due, to run once the lock is released.
    private enum Due {
        case timer(@Sendable () -> Void)
        case alarm(QueryKey, SchedulerInstant)
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
                guard let first = state.heap.min, first.instant <= now else { return nil }
                _ = state.heap.popMin()
                switch first.target {
                case .timer(let key):
                    return state.timers.removeValue(forKey: key).map { .timer($0.action) }
                case .alarm(let key, _):
                    state.alarms -= 1
                    return .alarm(key, first.instant)
                }
            }
            switch due {
            case .timer(let action): action()
            case .alarm(let key, let instant): ring(key, instant)
            case nil: break
            }
            guard due != nil else { break }
        }
        schedule(state.withLock { nextWake(&$0) })
    }
}
