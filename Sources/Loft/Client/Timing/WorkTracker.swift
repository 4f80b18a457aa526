import Dispatch
import Synchronization

/// The one place where Loft creates unstructured tasks: it counts the work in flight, so that tests can wait
/// until the client is idle, and a fetch can be cancelled through its task.
///
/// A task suspended on a timer (a retry back-off) or on the network (a paused fetch) does not count as busy:
/// with `TestScheduler`, the test must advance the clock or call `setOnline(true)` to wake it, so
/// `waitUntilIdle()` returns while it waits.
package final class WorkTracker: Sendable {
    /// The work in flight: an atomic, so that starting and ending work takes no lock (a mutation's round trip
    /// does both). The lock guards only the waiters.
    private let busy = Atomic<Int>(0)
    private let idleWaiters = Locked<[CheckedContinuation<Void, Never>]>([])
    /// How many waiters are listed, beside the list: work that ends with none listed (every call of an app that
    /// never waits for idleness, which is most of them) takes no lock to find it out.
    private let listedWaiters = Atomic<Int>(0)

    package init() {}

    /// Starts `work` in a new task, counted as busy until it ends; the task's value is the work's.
    ///
    /// With `immediately`, the task starts on the calling thread and runs there until it first suspends
    /// (`Task.immediate`), when the caller runs on the global executor, as `mutate`'s caller does: a caller
    /// that awaits the task next then wakes no other thread to start it, nor to be resumed by it when the
    /// work never suspends. A caller on another executor (the main actor) gets the task enqueued, as without
    /// it.
    ///
    /// The work is a value of a type (the task's closure calls its `run()`), so that a work type that holds
    /// what it needs is made without a closure of its own.
    @discardableResult @inline(__always)
    package func spawn<Work: TrackedWork>(immediately: Bool = false, _ work: Work) -> TrackedTask<Work.Success> {
        markBusy()
        if immediately, #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return TrackedTask.immediate { () async throws -> Work.Success in
                let value = await work.run()
                self.markIdle()
                return value
            }
        }
        return TrackedTask { () async throws -> Work.Success in
            let value = await work.run()
            self.markIdle()
            return value
        }
    }

    /// Starts `operation` in a new task, as `spawn(immediately:_:)` starts a work (a fetch's task).
    @discardableResult
    package func spawn<Success: Sendable>(
        immediately: Bool = false, _ operation: @escaping @Sendable () async -> Success
    ) -> TrackedTask<Success> {
        spawn(immediately: immediately, ClosureWork(operation: operation))
    }

    /// Suspends the calling tracked task until the wake-up that `arm` registers calls its `resume`; the task
    /// does not count as busy meanwhile. `arm` returns how to cancel the wake-up.
    ///
    /// The wake-up is registered before the task counts as idle, so `waitUntilIdle()` cannot return before a
    /// timer or a waiter exists that will wake it (`await client.waitUntilIdle(); scheduler.advance(by:)` never
    /// advances past a timer not yet set).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    package func suspend(
        _ arm: (_ resume: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)
    ) async throws {
        let resumed = Locked<CheckedContinuation<Void, any Error>?>(nil)
        let disarm = Locked<(@Sendable () -> Void)?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                resumed.withLock { $0 = continuation }
                let cancel = arm {
                    // Busy again before the task resumes, so `waitUntilIdle()` cannot slip in between.
                    guard let continuation = resumed.withLock({ $0.take() }) else { return }
                    self.markBusy()
                    continuation.resume()
                }
                disarm.withLock { $0 = cancel }
                markIdle()
                if Task.isCancelled, let continuation = resumed.withLock({ $0.take() }) {
                    cancel()
                    markBusy()
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            guard let continuation = resumed.withLock({ $0.take() }) else { return }
            disarm.withLock { $0 }?()
            markBusy()
            continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once no tracked task is running (each has ended or waits on the scheduler).
    package func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            idleWaiters.withLock { waiters in
                waiters.append(continuation)
                listedWaiters.add(1, ordering: .sequentiallyConsistent)
            }
            // Checked after the waiter is listed, as `markIdle` looks for waiters after counting down: one of the
            // two sees the other, so a waiter never misses the moment the work ends.
            if busy.load(ordering: .sequentiallyConsistent) == 0 { wakeWaiters() }
        }
    }

    /// How many callers of `waitUntilIdle()` wait now (for tests).
    package var waiterCount: Int {
        idleWaiters.withLock { $0.count }
    }

    private func markBusy() {
        busy.add(1, ordering: .sequentiallyConsistent)
    }

    /// Runs `work` on `queue`, counted as busy until it returns (blocking work, such as file writes, that must
    /// not hold a thread of the concurrency pool).
    package func dispatch(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        markBusy()
        queue.async {
            work()
            self.markIdle()
        }
    }

    private func markIdle() {
        if busy.subtract(1, ordering: .sequentiallyConsistent).newValue == 0,
            listedWaiters.load(ordering: .sequentiallyConsistent) > 0
        {
            wakeWaiters()
        }
    }

    /// Resumes every listed waiter (the work in flight was seen to end).
    private func wakeWaiters() {
        let waiters = idleWaiters.withLock { waiters in
            defer {
                waiters = []
                listedWaiters.store(0, ordering: .sequentiallyConsistent)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A task `WorkTracker` started. Typed as throwing though its work never throws (`TrackedWork.run()` does
/// not): `Task.immediate` and `Task.init` take a throwing operation, and handed one that does not throw they
/// convert it through a thunk, one more object and async frame per task (see docs/Performance.md). Its
/// `value` thus throws only if the task's work did, which it cannot.
package typealias TrackedTask<Success: Sendable> = Task<Success, any Error>

/// What a tracked task runs (`WorkTracker.spawn(immediately:_:)`).
package protocol TrackedWork: Sendable {
    associatedtype Success: Sendable
    /// Does the work; its value is the task's.
    func run() async -> Success
}

/// A closure as tracked work.
private struct ClosureWork<Success: Sendable>: TrackedWork {
    let operation: @Sendable () async -> Success

    @inline(__always)
    func run() async -> Success {
        await operation()
    }
}
