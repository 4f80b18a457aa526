import Signals
import TestSupport
import Testing

@Suite struct TestSchedulerTests {
    @Test("starts at the fixed epoch and moves only when advanced")
    func epoch() {
        let scheduler = TestScheduler()
        #expect(scheduler.now == TestScheduler.epoch)
        #expect(scheduler.now.description == "1767225600.000000000s")
        scheduler.advance(by: .seconds(2))
        #expect(scheduler.now == TestScheduler.epoch + .seconds(2))
    }

    @Test("runs due actions in deadline order, first scheduled first among equal deadlines")
    func order() {
        let scheduler = TestScheduler()
        let log = Box<[String]>([])
        scheduler.schedule(after: .seconds(2)) { log.mutate { $0.append("b") } }
        scheduler.schedule(after: .seconds(1)) { log.mutate { $0.append("a") } }
        scheduler.schedule(after: .seconds(2)) { log.mutate { $0.append("c") } }
        scheduler.advance(by: .seconds(1))
        #expect(log.value == ["a"])
        scheduler.advance(by: .seconds(1))
        #expect(log.value == ["a", "b", "c"])
    }

    @Test("an action sees now at its own deadline; actions scheduled while advancing run when due")
    func nestedScheduling() {
        let scheduler = TestScheduler()
        let seen = Box<[Duration]>([])
        scheduler.schedule(after: .seconds(1)) {
            seen.mutate { $0.append(TestScheduler.epoch.duration(to: scheduler.now)) }
            scheduler.schedule(after: .seconds(1)) {
                seen.mutate { $0.append(TestScheduler.epoch.duration(to: scheduler.now)) }
            }
            scheduler.schedule(after: .seconds(10)) { seen.mutate { $0.append(.zero) } }
        }
        scheduler.advance(by: .seconds(5))
        #expect(seen.value == [.seconds(1), .seconds(2)])
        #expect(scheduler.now == TestScheduler.epoch + .seconds(5))
        #expect(scheduler.pendingCount == 1)
        #expect(scheduler.nextDeadline == TestScheduler.epoch + .seconds(11))
    }

    @Test("schedule(_:) runs at the next advance; a cancelled action never runs")
    func immediateAndCancel() {
        let scheduler = TestScheduler()
        let log = Box<[Int]>([])
        scheduler.schedule { log.mutate { $0.append(1) } }
        let cancelled = scheduler.schedule(after: .seconds(1)) { log.mutate { $0.append(2) } }
        #expect(log.value == [])
        cancelled.cancel()
        scheduler.advance(by: .seconds(2))
        #expect(log.value == [1])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("releasing a scheduled token does not cancel the action")
    func releaseDoesNotCancel() {
        let scheduler = TestScheduler()
        let ran = Box(false)
        _ = scheduler.schedule(after: .seconds(1)) { ran.value = true }
        scheduler.advance(by: .seconds(1))
        #expect(ran.value)
    }

    @Test("run() drains everything, and a repeating timer stops at the limit instead of hanging")
    func run() {
        let scheduler = TestScheduler()
        let count = Box(0)
        scheduler.schedule(after: .seconds(3)) { count.mutate { $0 += 1 } }
        #expect(scheduler.run() == 1)
        #expect(scheduler.now == TestScheduler.epoch + .seconds(3))

        @Sendable func repeating() {
            count.mutate { $0 += 1 }
            scheduler.schedule(after: .seconds(1), repeating)
        }
        scheduler.schedule(repeating)
        #expect(scheduler.run(limit: 10) == 10)
        #expect(scheduler.pendingCount == 1)
    }

    @Test("a negative delay runs at the current instant; time never goes back")
    func negativeDelay() {
        let scheduler = TestScheduler()
        let ran = Box(false)
        scheduler.schedule(after: .seconds(-5)) { ran.value = true }
        scheduler.advance()
        #expect(ran.value)
        scheduler.advance(to: TestScheduler.epoch - .seconds(10))
        #expect(scheduler.now == TestScheduler.epoch)
    }
}

@Suite struct SchedulerInstantTests {
    @Test("arithmetic with Duration, and saturation instead of overflow")
    func arithmetic() {
        let start = SchedulerInstant(secondsSinceEpoch: 10)
        #expect((start + .milliseconds(1500)).nanosecondsSinceEpoch == 11_500_000_000)
        #expect((start - .seconds(1)).secondsSinceEpoch == 9)
        #expect((start + .seconds(3)) - start == .seconds(3))
        #expect(start.advanced(by: .seconds(Int64.max)).nanosecondsSinceEpoch == .max)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.milliseconds(-1500).nanoseconds == -1_500_000_000)
        #expect(Duration.milliseconds(250).secondsValue == 0.25)
    }
}
