import Dispatch

/// The main-queue scheduler: where UI state changes are delivered.
///
/// Every action is dispatched asynchronously to `DispatchQueue.main`, in order. On Linux the main queue runs
/// only while the main thread services it (`dispatchMain()`, a run loop, or Swift concurrency's main actor).
public struct MainQueueScheduler: Scheduler {
    /// The main-queue scheduler.
    public static let shared = MainQueueScheduler()

    private init() {}

    /// The current time of this scheduler.
    public var now: SchedulerInstant { WallClock.now() }

    /// Runs `action` as soon as possible (see `Scheduler.schedule(_:)`).
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Cancellable {
        DispatchQueue.main.schedule(action)
    }

    /// Runs `action` once `delay` has passed (see `Scheduler.schedule(after:_:)`).
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
        DispatchQueue.main.schedule(after: delay, action)
    }
}
