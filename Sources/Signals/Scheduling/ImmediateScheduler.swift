/// A scheduler that runs every action at once, on the calling thread, ignoring delays.
///
/// Useful as a delivery scheduler when work must stay synchronous. `now` reads the wall clock.
public struct ImmediateScheduler: Scheduler {
    /// The one immediate scheduler.
    public static let shared = ImmediateScheduler()

    private init() {}

    /// The current time of this scheduler.
    public var now: SchedulerInstant { WallClock.now() }

    /// Runs `action` as soon as possible (see `Scheduler.schedule(_:)`).
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Cancellable {
        action()
        return Subscription()
    }

    /// Runs `action` at once: an immediate scheduler has no future.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
        action()
        return Subscription()
    }
}
