/// The one timer queue of a client: a min-heap of deadlines on the client's scheduler, carrying every
/// garbage-collection, staleness, polling and retry deadline.
///
/// **Behavior**
/// - At most one block is scheduled on the scheduler at a time, for the earliest deadline; a timer set, moved
///   or cancelled changes the heap, not the scheduler (a cancelled or moved deadline is dropped when it comes
///   up).
/// - Due timers fire in deadline order, first set first among equal deadlines, with no lock held; a timer
///   set while firing, and due already, fires in the same turn.
/// - A timer is named by its owner and kind: setting it again moves it.
package final class TimerQueue: Sendable {
    /// Names one timer: its owner (from `makeOwner()`) and what it is for.
    package struct Key: Hashable, Sendable {
        package let owner: UInt64
        package let kind: UInt8

        package init(owner: UInt64, kind: UInt8) {
            self.owner = owner
            self.kind = kind
        }
    }

    private struct Deadline: Comparable, Sendable {
        let instant: SchedulerInstant
        let sequence: UInt64
        let key: Key

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
        var nextSequence: UInt64 = 0
        var nextOwner: UInt64 = 0
        /// The deadline the scheduler will wake us at, its generation, and its token once scheduled.
        var wake: (instant: SchedulerInstant, generation: UInt64, token: (any Cancellable)?)?
        var wakeGeneration: UInt64 = 0
    }

    private let scheduler: any Scheduler
    private let state = Locked(State())

    package init(scheduler: any Scheduler) {
        self.scheduler = scheduler
    }

    /// A queue that goes (with its client) leaves nothing scheduled.
    deinit {
        state.withLock { $0.wake?.token }?.cancel()
    }

    /// A new owner id, for the keys of one object's timers.
    package func makeOwner() -> UInt64 {
        state.withLock { state in
            state.nextOwner += 1
            return state.nextOwner
        }
    }

    /// How many timers are set.
    package var count: Int {
        state.withLock { $0.timers.count }
    }

    /// Sets the timer `key` to run `action` at `instant` (moving it if it was set), or cancels it when `instant`
    /// is nil.
    package func set(_ key: Key, at instant: SchedulerInstant?, _ action: @escaping @Sendable () -> Void) {
        guard let instant else { return cancel(key) }
        let wake = state.withLock { state -> Wake? in
            state.nextSequence += 1
            state.timers[key] = Timer(sequence: state.nextSequence, action: action)
            state.heap.insert(Deadline(instant: instant, sequence: state.nextSequence, key: key))
            return nextWake(&state)
        }
        schedule(wake)
    }

    /// Cancels the timer `key`, if set; with no timer left, the wake-up goes too (nothing stays pending on
    /// the scheduler).
    package func cancel(_ key: Key) {
        let wake = state.withLock { state -> (any Cancellable)? in
            guard state.timers.removeValue(forKey: key) != nil, state.timers.isEmpty, let wake = state.wake else {
                return nil
            }
            state.wake = nil
            state.heap = Heap()
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

    private func dropCancelled(_ state: inout State) {
        while let first = state.heap.min, state.timers[first.key]?.sequence != first.sequence {
            _ = state.heap.popMin()
        }
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
            let action = state.withLock { state -> (@Sendable () -> Void)? in
                dropCancelled(&state)
                guard let first = state.heap.min, first.instant <= now else { return nil }
                _ = state.heap.popMin()
                return state.timers.removeValue(forKey: first.key)?.action
            }
            guard let action else { break }
            action()
        }
        schedule(state.withLock { nextWake(&$0) })
    }
}
