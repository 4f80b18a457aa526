import Testing

@testable import Signals

@Suite struct SchedulerSleepTests {
    @Test("sleep resumes when the scheduler reaches the deadline, not before")
    func resumesAtDeadline() async throws {
        let scheduler = TestScheduler()
        let woke = Locked(false)
        let sleeper = Task {
            try await scheduler.sleep(for: .seconds(2))
            woke.withLock { $0 = true }
        }
        #expect(await yieldUntil { scheduler.pendingCount == 1 })
        scheduler.advance(by: .seconds(1))
        #expect(!woke.withLock { $0 })
        scheduler.advance(by: .seconds(1))
        try await sleeper.value
        #expect(woke.withLock { $0 })
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a cancelled sleep throws CancellationError and cancels its wake-up")
    func cancelled() async {
        let scheduler = TestScheduler()
        let sleeper = Task { try await scheduler.sleep(for: .seconds(5)) }
        #expect(await yieldUntil { scheduler.pendingCount == 1 })
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a sleep started in a cancelled task throws at once and leaves no wake-up")
    func alreadyCancelled() async {
        let scheduler = TestScheduler()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await scheduler.sleep(for: .seconds(5))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(scheduler.pendingCount == 0)
    }
}
