import Dispatch
import Loft
import Signals
import Synchronization

/// (e) 10,000 concurrent `fetchQuery` callers on one key, all arriving while its fetch is in flight (the fetcher
/// waits until every caller has made its call, then answers; a caller that reaches the entry after the answer
/// gets the fresh value from the cache): exactly one fetcher call, and every caller gets its value. Time per
/// caller, against the bare pattern: 10,000 tasks parked on a latch (a locked list of continuations) that the
/// last one opens; the two take turns.
func dedupeScenario(_ settings: Settings) -> Row {
    let callers = 10_000
    let rounds = max(1, settings.repetitions - 2)
    let best = bestInTurns(rounds, [{ dedupedCallers(callers) }, { latchedTasks(callers) }])
    return Row(
        scenario: "(e) 10,000 callers deduplicated, per caller", baselineName: "a task parked on a latch",
        nanoseconds: best[0], baselineNanoseconds: best[1], target: .ratio(3))
}

/// One round of (e): `callers` tasks calling `fetchQuery` on one cold key of a new client; nanoseconds per
/// caller.
private func dedupedCallers(_ callers: Int) -> Double {
    let client = QueryClient()
    let key = QueryKey("dedupe")
    let fetcherCalls = SharedCounter()
    let arrivals = Arrivals(expected: callers)
    let elapsed = runBlocking {
        let start = ContinuousClock.now
        let tasks = (0..<callers).map { _ in
            Task {
                arrivals.arrive()
                return
                    (try? await client.fetchQuery(key, staleTime: .infinity) {
                        fetcherCalls.increment()
                        await arrivals.waitForAll()
                        return 42
                    }) ?? -1
            }
        }
        var values: [Int] = []
        for task in tasks { values.append(await task.value) }
        precondition(values.allSatisfy { $0 == 42 }, "every caller gets the value")
        return ContinuousClock.now - start
    }
    precondition(fetcherCalls.value == 1, "exactly one fetcher call")
    return Double(elapsed.nanoseconds) / Double(callers)
}

/// One round of (e)'s baseline: `callers` tasks parked on a latch that the last opens; nanoseconds per task.
private func latchedTasks(_ callers: Int) -> Double {
    let latch = Latch(opensAt: callers)
    let elapsed = runBlocking {
        let start = ContinuousClock.now
        let tasks = (0..<callers).map { _ in Task { await latch.wait() } }
        var sum = 0
        for task in tasks { sum += await task.value }
        precondition(sum == 42 * callers)
        return ContinuousClock.now - start
    }
    return Double(elapsed.nanoseconds) / Double(callers)
}

/// Parks callers until `opensAt` of them wait, then gives them all 42.
final class Latch: Sendable {
    private let waiting = Locked<[CheckedContinuation<Int, Never>]>([])
    private let opensAt: Int

    init(opensAt: Int) {
        self.opensAt = opensAt
    }

    func wait() async -> Int {
        await withCheckedContinuation { continuation in
            let ready = waiting.withLock { waiting -> [CheckedContinuation<Int, Never>] in
                waiting.append(continuation)
                guard waiting.count == opensAt else { return [] }
                defer { waiting = [] }
                return waiting
            }
            for waiter in ready { waiter.resume(returning: 42) }
        }
    }
}

/// A counter that many tasks increment at once.
final class SharedCounter: Sendable {
    private let storage = Atomic<Int>(0)

    func increment() {
        storage.add(1, ordering: .relaxed)
    }

    var value: Int { storage.load(ordering: .relaxed) }

    /// Returns the count and starts again from zero.
    func reset() -> Int {
        storage.exchange(0, ordering: .relaxed)
    }
}

/// Runs `body` on the cooperative pool and waits for it, from synchronous code.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = result.withLock({ $0 }) else { preconditionFailure("runBlocking: the body produced nothing") }
    return value
}

/// Counts callers as they make their call; `waitForAll()` returns once every expected caller has.
final class Arrivals: Sendable {
    private struct State {
        var arrived = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let expected: Int

    init(expected: Int) {
        self.expected = expected
    }

    func arrive() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.arrived += 1
            guard state.arrived >= expected else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in ready { waiter.resume() }
    }

    func waitForAll() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isDone = state.withLock { state -> Bool in
                guard state.arrived < expected else { return true }
                state.waiters.append(continuation)
                return false
            }
            if isDone { continuation.resume() }
        }
    }
}
