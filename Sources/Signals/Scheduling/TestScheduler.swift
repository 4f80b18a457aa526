/// A scheduler in virtual time: nothing runs until the test advances the clock.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let subscription = subject.debounce(for: .milliseconds(300), scheduler: scheduler).sink { print($0) }
/// subject.send(1)
/// scheduler.advance(by: .milliseconds(300))  // prints 1
/// ```
///
/// **Behavior**
/// - Starts at `TestScheduler.epoch` (2026-01-01T00:00:00Z), so rendered dates and ages are stable.
/// - `schedule(_:)` queues work at the current instant: it runs at the next `advance`.
/// - `advance(by:)` runs every due action in deadline order (first scheduled first among equal deadlines),
///   including actions scheduled while advancing, with `now` set to each action's deadline; then `now`
///   becomes the target.
/// - Actions run synchronously on the thread that advances, with no lock held.
public final class TestScheduler: Scheduler {
    /// The instant a new `TestScheduler` starts at: 2026-01-01T00:00:00Z.
    public static let epoch = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    private struct Entry: Comparable, Sendable {
        let deadline: SchedulerInstant
        let sequence: UInt64

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
        }
    }

    private struct State: Sendable {
        var now: SchedulerInstant
        var queue = Heap<Entry>()
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var nextSequence: UInt64 = 0
    }

    private let state: Locked<State>

    /// Makes a scheduler whose clock reads `now` (default: `TestScheduler.epoch`).
    public init(now: SchedulerInstant = TestScheduler.epoch) {
        state = Locked(State(now: now))
    }

    // MARK: - Public API

    /// The current time of this scheduler.
    public var now: SchedulerInstant {
        state.withLock { $0.now }
    }

    /// How many actions are waiting to run.
    public var pendingCount: Int {
        state.withLock { $0.actions.count }
    }

    /// The deadline of the next action that will run, if any.
    public var nextDeadline: SchedulerInstant? {
        state.withLock { state in
            while let first = state.queue.min, state.actions[first.sequence] == nil {
                _ = state.queue.popMin()
            }
            return state.queue.min?.deadline
        }
    }

    /// Runs `action` as soon as possible (see `Scheduler.schedule(_:)`).
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Cancellable {
        enqueue(after: .zero, action)
    }

    /// Runs `action` once `delay` has passed (see `Scheduler.schedule(after:_:)`).
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
        enqueue(after: max(delay, .zero), action)
    }

    /// Moves the clock forward by `duration`, running every action that falls due on the way.
    ///
    /// `advance()` (zero) runs what is due now, such as work queued by `schedule(_:)`.
    public func advance(by duration: Duration = .zero) {
        advance(to: now + max(duration, .zero))
    }

    /// Moves the clock to `instant` (never backwards), running every action due by then.
    public func advance(to instant: SchedulerInstant) {
        while let action = nextAction(dueBy: instant) {
            action()
        }
        state.withLock { $0.now = max($0.now, instant) }
    }

    /// Runs actions, advancing the clock to each one's deadline, until none is left.
    ///
    /// - Parameter limit: the most actions to run (default 1,000,000), so that a repeating timer (polling)
    ///   cannot hang a test; when it is reached, the remaining actions stay queued.
    /// - Returns: how many actions ran.
    @discardableResult
    public func run(limit: Int = 1_000_000) -> Int {
        var count = 0
        while count < limit, let action = nextAction(dueBy: SchedulerInstant(nanosecondsSinceEpoch: .max)) {
            action()
            count += 1
        }
        return count
    }

    // MARK: - Actions

    private func enqueue(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
        let sequence = state.withLock { state in
            let sequence = state.nextSequence
            state.nextSequence += 1
            state.queue.insert(Entry(deadline: state.now + delay, sequence: sequence))
            state.actions[sequence] = action
            return sequence
        }
        return Subscription(cancelsOnRelease: false) { [weak self] in
            _ = self?.state.withLock { $0.actions.removeValue(forKey: sequence) }
        }
    }

    private func nextAction(dueBy instant: SchedulerInstant) -> (@Sendable () -> Void)? {
        state.withLock { state in
            while let first = state.queue.min, first.deadline <= instant {
                _ = state.queue.popMin()
                guard let action = state.actions.removeValue(forKey: first.sequence) else { continue }
                state.now = max(state.now, first.deadline)
                return action
            }
            return nil
        }
    }
}
