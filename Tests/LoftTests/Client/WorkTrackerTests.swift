import Signals
import TestSupport
import Testing

@testable import Loft

/// The work tracker: the one place that starts tasks, and counts them until they end.
@Suite struct WorkTrackerTests {
    @Test("an immediate task runs on the caller up to its first suspension before spawn returns, then goes on")
    func immediateTaskRunsUntilItsFirstSuspension() async throws {
        let tracker = WorkTracker()
        let (resumes, resume) = AsyncStream<Void>.makeStream()
        let steps = Locked<[String]>([])
        let task = tracker.spawn(immediately: true) {
            steps.withLock { $0.append("started") }
            for await _ in resumes { break }
            steps.withLock { $0.append("resumed") }
            return 7
        }
        #expect(steps.withLock { $0 } == ["started"])
        resume.yield()
        #expect(try await task.value == 7)
        #expect(steps.withLock { $0 } == ["started", "resumed"])
        await tracker.waitUntilIdle()
    }

    @Test("an immediate task that never suspends has ended when spawn returns, and counts as idle")
    func immediateTaskWithoutSuspensionEndsAtOnce() async throws {
        let tracker = WorkTracker()
        let ran = Locked(0)
        let task = tracker.spawn(immediately: true) { ran.withLock { $0 += 1 } }
        #expect(ran.withLock { $0 } == 1)
        try await task.value
        await tracker.waitUntilIdle()
        #expect(ran.withLock { $0 } == 1)
    }

    @Test("waitUntilIdle waits for the work in flight and returns once it ended", .timeLimit(.minutes(1)))
    func waitsForWorkInFlight() async throws {
        let tracker = WorkTracker()
        let (resumes, resume) = AsyncStream<Void>.makeStream()
        let log = Locked<[String]>([])
        let task = tracker.spawn {
            for await _ in resumes { break }
            log.withLock { $0.append("ended") }
        }
        // Started inline: it waits (is registered as a waiter) when this returns.
        let waiter = startedInline {
            await tracker.waitUntilIdle()
            log.withLock { $0.append("idle") }
        }
        #expect(tracker.waiterCount == 1)
        #expect(log.withLock { $0 }.isEmpty)
        resume.yield()
        try await task.value
        try await waiter.value
        #expect(log.withLock { $0 } == ["ended", "idle"])
        #expect(tracker.waiterCount == 0)
    }

    @Test("waiters racing work that starts and ends on other threads all return once it ended", .timeLimit(.minutes(1)))
    func waitersRacingWorkAllReturn() async {
        let tracker = WorkTracker()
        let ended = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<500 {
                group.addTask {
                    _ = try? await tracker.spawn { ended.withLock { $0 += 1 } }.value
                }
                group.addTask { await tracker.waitUntilIdle() }
            }
        }
        await tracker.waitUntilIdle()
        #expect(ended.withLock { $0 } == 500)
        #expect(tracker.waiterCount == 0)
    }
}
