/// Runs work now or later: the clock that every time-based operator, and every Loft timer, reads.
///
/// Inject it: production code uses a real-time scheduler (`DispatchQueue`, `MainQueueScheduler`), tests use
/// `TestScheduler` and advance virtual time by hand, so no test sleeps.
///
/// **Behavior**
/// - `now` is nanoseconds since the Unix epoch (virtual for `TestScheduler`).
/// - The returned token cancels the work if it has not started; cancelling later does nothing. Releasing the
///   token does not cancel (it is a `Subscription` made with `cancelsOnRelease: false`).
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
