import Signals
import Testing

@testable import Loft

/// The work tracker: the one place that starts tasks, and counts them until they end.
@Suite struct WorkTrackerTests {
    @Test("an immediate task runs on the caller up to its first suspension before spawn returns, then goes on")
    func immediateTaskRunsUntilItsFirstSuspension() async {
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
        #expect(await task.value == 7)
        #expect(steps.withLock { $0 } == ["started", "resumed"])
        await tracker.waitUntilIdle()
    }

    @Test("an immediate task that never suspends has ended when spawn returns, and counts as idle")
    func immediateTaskWithoutSuspensionEndsAtOnce() async {
        let tracker = WorkTracker()
        let ran = Locked(0)
        let task = tracker.spawn(immediately: true) { ran.withLock { $0 += 1 } }
        #expect(ran.withLock { $0 } == 1)
        await task.value
        await tracker.waitUntilIdle()
        #expect(ran.withLock { $0 } == 1)
    }
}
