import Dispatch

/// The main-queue scheduler: where UI state changes are delivered.
///
/// Every action is dispatched asynchronously to `DispatchQueue.main`, in order. On Linux the main queue runs
/// only while the main thread services it (`dispatchMain()`, a run loop, or Swift concurrency's main actor).
public struct MainQueueScheduler: Scheduler {
    /// The main-queue scheduler.
    public static let shared = MainQueueScheduler()

    private init() {}

    public var now: SchedulerInstant { WallClock.now() }

    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Cancellable {
        DispatchQueue.main.schedule(action)
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
        DispatchQueue.main.schedule(after: delay, action)
    }
}
