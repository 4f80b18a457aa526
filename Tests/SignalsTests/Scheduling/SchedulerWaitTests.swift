import TestSupport
import Testing

@testable import Signals

@Suite struct SchedulerWaitTests {
    @Test("wait(for:) resumes when the scheduler reaches the deadline, not before")
    func resumesAtDeadline() async throws {
        let scheduler = TestScheduler()
        let woke = Locked(false)
        // Started inline: its wake-up is on the scheduler when this returns.
        let waiter = startedInline {
            try await scheduler.wait(for: .seconds(2))
            woke.withLock { $0 = true }
        }
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .seconds(1))
        #expect(!woke.withLock { $0 })
        scheduler.advance(by: .seconds(1))
        try await waiter.value
        #expect(woke.withLock { $0 })
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a cancelled wait throws CancellationError and cancels its wake-up")
    func cancelled() async {
        let scheduler = TestScheduler()
        let waiter = startedInline { try await scheduler.wait(for: .seconds(5)) }
        #expect(scheduler.pendingCount == 1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a wait started in a cancelled task throws at once and leaves no wake-up")
    func alreadyCancelled() async {
        let scheduler = TestScheduler()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await scheduler.wait(for: .seconds(5))
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(scheduler.pendingCount == 0)
    }
}
