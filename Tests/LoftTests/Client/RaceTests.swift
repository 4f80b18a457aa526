import Dispatch
import LoftTesting
import Testing

@testable import Loft

/// Three operations that concurrent callers must not break (an update, the polling chain, ...), each atomic;
/// run under the thread sanitizer.
@Suite struct RaceTests {
    @Test("setQueryData(for:updater:) from many threads loses no update: the updater runs again on newer data")
    func updaterIsAtomic() throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(0, for: "count")
        DispatchQueue.concurrentPerform(iterations: 800) { _ in
            try? harness.client.setQueryData(for: "count") { (old: Int?) in (old ?? 0) + 1 }
        }
        #expect(try harness.client.getQueryData("count", as: Int.self) == 800)
    }

    @Test("concurrent refetch calls start one polling chain")
    func onePollingChain() async {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(
            key: "poll", pollingBehavior: .pollEvery(.seconds(5)), options: QueryOptions(staleTime: .infinity),
            client: harness.client
        ) { 1 }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in query.refetch() }
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(5))
        #expect(harness.fetchReasons(for: "poll").filter { $0 == .interval }.count == 1)
    }

    @Test("waitUntilIdle returns only once a failed fetch's retry timer is set, so advancing always wakes it")
    func retryTimerBeforeIdle() async {
        for _ in 0..<50 {
            let harness = TestQueryClient(defaults: QueryDefaults(retry: .count(1)))
            let fetcher = ScriptedFetcher<Void, Int>(.fail(APIError.offline), .answer(1))
            let query = Query(key: "r", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
            await fetcher.waitForCalls(1)
            await harness.client.waitUntilIdle()
            await harness.advance(by: .seconds(1))
            #expect(query.state.value == 1)
        }
    }
}

@Suite struct TimerQueueTests {
    @Test("timers fire in deadline order, first set first among equal deadlines; a moved timer fires once")
    func order() {
        let scheduler = TestScheduler()
        let timers = TimerQueue<Owner>(scheduler: scheduler)
        let fired = Locked<[String]>([])
        let keys = (0...4).map { _ in timers.makeKey() }
        func key(_ index: Int) -> TimerKey { keys[index] }
        timers.set(key(1), at: scheduler.now + .seconds(3)) { fired.withLock { $0.append("c") } }
        timers.set(key(2), at: scheduler.now + .seconds(1)) { fired.withLock { $0.append("a") } }
        timers.set(key(3), at: scheduler.now + .seconds(1)) { fired.withLock { $0.append("b") } }
        timers.set(key(4), at: scheduler.now + .seconds(1)) { fired.withLock { $0.append("moved") } }
        timers.set(key(4), at: scheduler.now + .seconds(5)) { fired.withLock { $0.append("d") } }
        scheduler.advance(by: .seconds(10))
        #expect(fired.withLock { $0 } == ["a", "b", "c", "d"])
        #expect(timers.count == 0)
        #expect(scheduler.pendingCount == 0)
    }

    /// An alarm owner that records its rings by name.
    private final class Owner: AlarmOwner {
        let name: Int
        let rung: Locked<[Int]>

        init(_ name: Int, rung: Locked<[Int]>) {
            self.name = name
            self.rung = rung
        }

        func alarmRang(_ instant: SchedulerInstant) {
            rung.withLock { $0.append(name) }
        }
    }

    @Test("dropped owners' alarms never ring and are swept out of the heap; the others ring in deadline order")
    func droppedAlarms() {
        let scheduler = TestScheduler()
        let rung = Locked<[Int]>([])
        let timers = TimerQueue<Owner>(scheduler: scheduler)
        let owners = (1...1_000).map { Owner($0, rung: rung) }
        for owner in owners { timers.setAlarm(for: owner, at: scheduler.now + .seconds(2_000 - owner.name)) }
        for owner in owners where owner.name % 100 != 0 { timers.dropAlarms(of: owner) }
        // Swept each time the dropped owners reach a quarter of the alarms (and at least 64).
        #expect(timers.count < 10 + 64)
        // A new owner's alarm rings (first: at 500 s).
        timers.setAlarm(for: Owner(1_001, rung: rung), at: scheduler.now + .seconds(500))
        scheduler.advance(by: .seconds(2_000))
        #expect(rung.withLock { $0 } == [1_001] + stride(from: 1_000, to: 0, by: -100))
        #expect(timers.count == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("an alarm holds its owner until it rings or is swept; dropping them all releases every owner")
    func alarmsHoldTheirOwners() {
        let scheduler = TestScheduler()
        let timers = TimerQueue<Owner>(scheduler: scheduler)
        let rung = Locked<[Int]>([])
        weak var rings: Owner?
        weak var dropped: Owner?
        weak var kept: Owner?
        do {
            let owners = (1...3).map { Owner($0, rung: rung) }
            (rings, dropped, kept) = (owners[0], owners[1], owners[2])
            timers.setAlarm(for: owners[0], at: scheduler.now + .seconds(1))
            timers.setAlarm(for: owners[1], at: scheduler.now + .seconds(2))
            timers.setAlarm(for: owners[2], at: scheduler.now + .seconds(3))
            timers.dropAlarms(of: owners[1])
        }
        #expect(rings != nil && dropped != nil && kept != nil)
        scheduler.advance(by: .seconds(1))
        #expect(rung.withLock { $0 } == [1])
        #expect(rings == nil)
        // Listed until a sweep: no new owner can take its address and have its alarms taken for a dropped one's.
        scheduler.advance(by: .seconds(1))
        #expect(dropped != nil)
        #expect(rung.withLock { $0 } == [1])
        timers.dropAllAlarms()
        #expect(dropped == nil && kept == nil)
        #expect(timers.count == 0)
    }

    /// An owner, or a timer's capture, whose last release sets a timer, as an entry's may (its fetcher's
    /// captures run user code).
    private final class SetsATimerWhenReleased: AlarmOwner {
        let onRelease: @Sendable () -> Void

        init(_ onRelease: @escaping @Sendable () -> Void) {
            self.onRelease = onRelease
        }

        deinit { onRelease() }

        func alarmRang(_ instant: SchedulerInstant) {}
    }

    @Test(
        "what the queue lets go (a timer's closure, an owner) goes after its lock: a release may set a timer",
        .timeLimit(.minutes(1)))
    func releasesAfterTheLock() {
        let scheduler = TestScheduler()
        let timers = TimerQueue<SetsATimerWhenReleased>(scheduler: scheduler)
        let later = scheduler.now + .seconds(10)
        let setByReleases = Locked(0)
        let setTimer: @Sendable () -> Void = {
            setByReleases.withLock { $0 += 1 }
            timers.set(timers.makeKey(), at: later) {}
        }
        let key = timers.makeKey()
        do {
            let capture = SetsATimerWhenReleased(setTimer)
            timers.set(key, at: later) { withExtendedLifetime(capture) {} }
        }
        timers.set(key, at: later) {}  // replaces the timer holding the capture
        #expect(setByReleases.withLock { $0 } == 1)
        do {
            let capture = SetsATimerWhenReleased(setTimer)
            timers.set(key, at: later) { withExtendedLifetime(capture) {} }
        }
        timers.cancel(key)
        #expect(setByReleases.withLock { $0 } == 2)
        do { timers.setAlarm(for: SetsATimerWhenReleased(setTimer), at: later) }
        timers.dropAllAlarms()
        #expect(setByReleases.withLock { $0 } == 3)
        // 64 dropped owners make a sweep, which lets them go.
        var owners = (0..<64).map { _ in SetsATimerWhenReleased(setTimer) }
        for owner in owners { timers.setAlarm(for: owner, at: later) }
        while let owner = owners.popLast() { timers.dropAlarms(of: owner) }
        #expect(setByReleases.withLock { $0 } == 3 + 64)
        #expect(timers.count == 3 + 64)
    }

    @Test("an alarm and a timer due at the same instant: the alarm rings first, whichever was set first")
    func alarmsBeforeTimers() {
        let scheduler = TestScheduler()
        let timers = TimerQueue<Owner>(scheduler: scheduler)
        let rung = Locked<[Int]>([])
        let owner = Owner(1, rung: rung)
        timers.set(timers.makeKey(), at: scheduler.now + .seconds(1)) { rung.withLock { $0.append(0) } }
        timers.setAlarm(for: owner, at: scheduler.now + .seconds(1))
        scheduler.advance(by: .seconds(1))
        #expect(rung.withLock { $0 } == [1, 0])
    }

    @Test("a timer set while firing and already due fires in the same turn; cancelling the last leaves nothing")
    func nested() {
        let scheduler = TestScheduler()
        let timers = TimerQueue<Owner>(scheduler: scheduler)
        let fired = Locked(0)
        let (first, second, third) = (timers.makeKey(), timers.makeKey(), timers.makeKey())
        timers.set(first, at: scheduler.now + .seconds(1)) {
            timers.set(second, at: scheduler.now) { fired.withLock { $0 += 1 } }
        }
        scheduler.advance(by: .seconds(1))
        #expect(fired.withLock { $0 } == 1)
        timers.set(third, at: scheduler.now + .seconds(1)) {}
        timers.cancel(third)
        #expect(scheduler.pendingCount == 0)
    }
}
