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
        let timers = TimerQueue(scheduler: scheduler)
        let fired = Locked<[String]>([])
        let keys = (0...4).map { _ in timers.makeKey() }
        func key(_ index: Int) -> TimerQueue.Key { keys[index] }
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

    @Test("dropped owners' alarms never ring and are swept out of the heap; the others ring in deadline order")
    func droppedAlarms() {
        let scheduler = TestScheduler()
        let rung = Locked<[QueryKey]>([])
        let timers = TimerQueue(scheduler: scheduler) { key, _ in rung.withLock { $0.append(key) } }
        for owner in UInt64(1)...1_000 {
            let instant = scheduler.now + .seconds(Int(2_000 - owner))
            timers.setAlarm(for: QueryKey("k", Int(owner)), owner: owner, at: instant)
        }
        for owner in UInt64(1)...1_000 where owner % 100 != 0 { timers.dropAlarms(of: owner) }
        // Swept each time the dropped owners reach half the alarms left by the last sweep (and at least 64).
        #expect(timers.count < 10 + 64)
        // The key of a dropped owner, set again by a new owner, rings for the new one (first: at 500 s).
        timers.setAlarm(for: QueryKey("k", 1), owner: 1_001, at: scheduler.now + .seconds(500))
        scheduler.advance(by: .seconds(2_000))
        let expected = [QueryKey("k", 1)] + stride(from: 1_000, to: 0, by: -100).map { QueryKey("k", $0) }
        #expect(rung.withLock { $0 } == expected)
        #expect(timers.count == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a timer set while firing and already due fires in the same turn; cancelling the last leaves nothing")
    func nested() {
        let scheduler = TestScheduler()
        let timers = TimerQueue(scheduler: scheduler)
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
