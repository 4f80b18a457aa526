/// The one place where Loft creates unstructured tasks: it counts the work in flight, so that tests can wait
/// until the client is idle, and a fetch can be cancelled through its task.
///
/// A task waiting on the scheduler (a retry back-off) does not count as busy: with `TestScheduler`, the test
/// must advance the clock to wake it, so `waitUntilIdle()` returns while it waits.
package final class WorkTracker: Sendable {
    private struct State: Sendable {
        var busy = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Starts `operation` in a new task, counted as busy until it ends.
    @discardableResult
    package func spawn(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        markBusy()
        return Task {
            await operation()
            self.markIdle()
        }
    }

    /// Suspends for `delay` on `scheduler`, not counted as busy meanwhile. Throws `CancellationError` when the
    /// task is cancelled first.
    package func sleep(for delay: Duration, on scheduler: any Scheduler) async throws {
        let resumed = Locked<CheckedContinuation<Void, any Error>?>(nil)
        let timer = Locked<(any Cancellable)?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                resumed.withLock { $0 = continuation }
                markIdle()
                let scheduled = scheduler.schedule(after: delay) {
                    // Busy again before the task resumes, so `waitUntilIdle()` cannot slip in between.
                    guard let continuation = resumed.withLock({ $0.take() }) else { return }
                    self.markBusy()
                    continuation.resume()
                }
                timer.withLock { $0 = scheduled }
                if Task.isCancelled, let continuation = resumed.withLock({ $0.take() }) {
                    scheduled.cancel()
                    markBusy()
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            guard let continuation = resumed.withLock({ $0.take() }) else { return }
            timer.withLock { $0 }?.cancel()
            markBusy()
            continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once no tracked task is running (each has ended or waits on the scheduler).
    package func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = state.withLock { state -> Bool in
                guard state.busy > 0 else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    private func markBusy() {
        state.withLock { $0.busy += 1 }
    }

    private func markIdle() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.busy -= 1
            guard state.busy == 0 else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
