import Dispatch

/// A dispatch queue schedules work asynchronously on itself; `now` reads the wall clock and delays use the
/// monotonic clock, so a change of the system time does not stretch them.
extension DispatchQueue: Scheduler {
    public var now: SchedulerInstant { WallClock.now() }

    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Cancellable {
        let work = ScheduledWork()
        async {
            if !work.isCancelled { action() }
        }
        return work
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Cancellable {
        let work = ScheduledWork()
        let nanoseconds = max(0, delay.nanoseconds)
        asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) {
            if !work.isCancelled { action() }
        }
        return work
    }
}
