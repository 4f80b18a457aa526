import Dispatch

/// Runs `body(index)` for `0..<iterations` on as many threads as the machine has, and returns when all end.
public func concurrently(_ iterations: Int, _ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
}

/// Starts `operation` in a task that runs on the calling thread until its first suspension, so that what it
/// registers before suspending (a waiter, a wake-up on a scheduler) is registered when this returns: a test
/// then acts on it without waiting for the task to be scheduled.
public func startedInline<Success: Sendable>(
    _ operation: sending @escaping @isolated(any) () async throws -> Success
) -> Task<Success, any Error> {
    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
        return Task.immediate(operation: operation)
    }
    preconditionFailure("Task.immediate needs the 2025 platforms; the tests run on Linux and current Apple systems")
}
