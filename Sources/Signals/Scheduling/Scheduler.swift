/// Runs work now or later: the clock that every time-based operator, and every Loft timer, reads.
///
/// Inject it: production code uses a real-time scheduler (`DispatchQueue`, `MainQueueScheduler`), tests use
/// `TestScheduler` and advance virtual time by hand, so no test sleeps.
///
/// **Behavior**
/// - `now` is nanoseconds since the Unix epoch (virtual for `TestScheduler`).
/// - The returned token cancels the work if it has not started; cancelling later does nothing. Releasing the
///   token does not cancel (unlike `Subscription`).
public protocol Scheduler: Sendable {
    /// The current time of this scheduler.
    var now: SchedulerInstant { get }

    /// Runs `action` as soon as possible.
    ///
    /// - Returns: a token that cancels the action if it has not run yet.
    @discardableResult
    func schedule(_ action: @escaping @Sendable () -> Void) -> any Cancellable

    /// Runs `action` once `delay` has passed (at once when `delay` is zero or negative).
    ///
    /// - Returns: a token that cancels the action if it has not run yet.
    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable
}

/// The token a scheduler returns: `cancel()` stops work that has not started. Releasing it does nothing.
package final class ScheduledWork: Cancellable {
    private struct State: Sendable {
        var isCancelled = false
        var onCancel: (@Sendable () -> Void)?
    }

    private let state: Locked<State>

    /// Makes a token; `onCancel` runs once, on the first `cancel()`.
    package init(onCancel: (@Sendable () -> Void)? = nil) {
        state = Locked(State(onCancel: onCancel))
    }

    package var isCancelled: Bool { state.withLock { $0.isCancelled } }

    package func cancel() {
        let onCancel = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.isCancelled else { return nil }
            state.isCancelled = true
            defer { state.onCancel = nil }
            return state.onCancel
        }
        onCancel?()
    }
}
