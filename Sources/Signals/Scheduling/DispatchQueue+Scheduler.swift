import Dispatch

/// A dispatch queue schedules work asynchronously on itself; `now` reads the wall clock and delays use the
/// monotonic clock, so a change of the system time does not stretch them.
extension DispatchQueue: Scheduler {
    /// The current time of this scheduler.
    public var now: SchedulerInstant { WallClock.now() }

    /// Runs `action` as soon as possible (see `Scheduler.schedule(_:)`).
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Cancellable {
        let work = Subscription(cancelsOnRelease: false) {}
        async {
            if !work.isCancelled { action() }
        }
        return work
    }

    /// Runs `action` once `delay` has passed (see `Scheduler.schedule(after:_:)`).
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
        let work = Subscription(cancelsOnRelease: false) {}
        let nanoseconds = max(0, delay.nanoseconds)
        asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) {
            if !work.isCancelled { action() }
        }
        return work
    }
}
