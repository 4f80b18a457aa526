/// Polling: one chain of ticks on the client's timer queue at the options' interval, started by the first
/// fetch, restarted when the interval changes.
extension Query {
    /// The interval to poll at, as the options stand; nil for none.
    var pollInterval: Duration? {
        guard case .pollEvery(let interval) = pollingBehavior, interval > .zero else { return nil }
        return interval
    }

    /// Starts the polling chain unless one runs: checked and set in one step, so concurrent refetches start
    /// one chain.
    func startPolling() {
        guard let interval = pollInterval else { return }
        let starts = locked.withLock { state -> Bool in
            guard state.pollInterval == nil else { return false }
            state.pollInterval = interval
            return true
        }
        if starts { schedulePoll(after: interval) }
    }

    /// The options changed: a running chain whose interval is no longer the options' starts again from now at
    /// the new one, or stops. A query that never started polling waits for its first fetch, as before.
    func restartPolling() {
        let interval = pollInterval
        let restarts = locked.withLock { state -> Bool in
            guard let running = state.pollInterval, running != interval else { return false }
            state.pollInterval = interval
            return true
        }
        guard restarts else { return }
        if let interval { schedulePoll(after: interval) } else { client.context.timers.cancel(pollTimer) }
    }

    /// Polls on the client's timer queue; each tick asks the entry, which skips it while the query is disabled,
    /// or unfocused without `refetchIntervalInBackground`. Setting the timer replaces the one set before.
    func schedulePoll(after interval: Duration) {
        client.context.timers.set(pollTimer, at: client.scheduler.now + interval) { [weak self] in
            guard let self else { return }
            let (request, current) = locked.withLock { ($0.request, $0.pollInterval) }
            // A tick of an interval the options no longer have: the restarted chain carries on.
            guard current == interval else { return }
            if let request {
                let inBackground = observation.resolved.refetchIntervalInBackground
                fetch(request, reason: .interval, intent: .interval(inBackground: inBackground))
            }
            schedulePoll(after: interval)
        }
    }
}
