extension Scheduler {
    /// Suspends the calling task until `duration` has passed on this scheduler.
    ///
    /// On a `TestScheduler` the task resumes when the test advances past the deadline, so code that waits
    /// (a demo service's latency, a back-off of your own) runs in virtual time like the rest of the library.
    ///
    /// ```swift
    /// func loadUsers() async throws -> [User] {
    ///     try await scheduler.wait(for: .milliseconds(120))  // simulated latency
    ///     return users
    /// }
    /// ```
    ///
    /// - Throws: `CancellationError` when the task is cancelled first; the scheduled wake-up is cancelled then.
    public func wait(for duration: Duration) async throws {
        let waiting = Locked<CheckedContinuation<Void, any Error>?>(nil)
        let wakeUp = Locked<(any Cancellable)?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiting.withLock { $0 = continuation }
                let token = schedule(after: duration) {
                    waiting.withLock { $0.take() }?.resume()
                }
                wakeUp.withLock { $0 = token }
                if Task.isCancelled, let continuation = waiting.withLock({ $0.take() }) {
                    token.cancel()
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            guard let continuation = waiting.withLock({ $0.take() }) else { return }
            wakeUp.withLock { $0 }?.cancel()
            continuation.resume(throwing: CancellationError())
        }
    }
}
