import Loft
import Signals

/// (k) `setFocused(true)` with 10,000 active queries (each a `Query` with a subscribed `statePublisher`), of
/// which 100 are stale (`staleTime` 0; the others `.infinity`): exactly 100 fetches start, each recorded with the
/// reason `.focus`. Time of the call, against iterating 10,000 entries that each take a lock and check a
/// deadline, the least any focus manager must do.
func focusScenario(_ settings: Settings) -> Row {
    let fleet = FocusedQueries()
    let (count, staleCount, client) = (fleet.count, fleet.staleCount, fleet.client)
    let boxes = (0..<count).map { LockedDeadline(isStale: $0 < staleCount) }
    let clock = ContinuousClock()
    var (best, baseline) = (Double.infinity, Double.infinity)
    // The call and its baseline take turns, so that both see the same moments of a noisy machine.
    for _ in 0..<settings.repetitions * 2 {
        client.setFocused(false)
        let start = clock.now
        client.setFocused(true)
        let elapsed = clock.now - start
        fleet.checkRefetched()
        best = min(best, nanoseconds(elapsed))
        let now = clock.now
        baseline = min(
            baseline,
            measure(repetitions: 1, iterations: 1) {
                var stale = 0
                for box in boxes where box.isStale(at: now) { stale += 1 }
                precondition(stale == staleCount)
            })
    }
    // The queries and subscriptions live until here (a release build would free them after their last use).
    withExtendedLifetime(fleet) {}
    return Row(
        scenario: "(k) setFocused(true), 10,000 active queries, 100 stale", baselineName: "10,000 locked checks",
        nanoseconds: best, baselineNanoseconds: baseline, target: .ratio(3))
}

/// 10,000 active queries (each with a subscribed `statePublisher`), of which 100 are stale: what (k) and its
/// instruction probe measure.
struct FocusedQueries {
    let count = 10_000
    let staleCount = 100
    let client = QueryClient()
    let focusFetches = SharedCounter()
    let queries: [Query<Void, Int>]
    let subscriptions: [Subscription]
    let events: Subscription

    init() {
        let (client, focusFetches, staleCount) = (client, focusFetches, staleCount)
        events = client.events.sink { event in
            if case .fetchStarted(_, .focus) = event { focusFetches.increment() }
        }
        queries = (0..<count).map { index in
            Query<Void, Int>(
                key: QueryKey("focus", index), behavior: .startImmediately(()),
                options: QueryOptions(staleTime: index < staleCount ? .zero : .infinity), client: client
            ) { index }
        }
        subscriptions = queries.map { $0.statePublisher.sink { _ in } }
        runBlocking { await client.waitUntilIdle() }
        precondition(queries.allSatisfy { $0.state.value != nil }, "every query has its value")
    }

    /// Waits for the fetches that the focus started and checks that exactly the stale queries refetched.
    func checkRefetched() {
        let client = client
        runBlocking { await client.waitUntilIdle() }
        precondition(focusFetches.reset() == staleCount, "exactly the stale queries refetch")
    }
}

/// An entry's worth of locked state: a deadline to compare with now.
final class LockedDeadline: Sendable {
    private let deadline: Locked<ContinuousClock.Instant>

    init(isStale: Bool) {
        deadline = Locked(ContinuousClock.now + (isStale ? .seconds(-1) : .seconds(3600)))
    }

    func isStale(at now: ContinuousClock.Instant) -> Bool {
        deadline.withLock { $0 <= now }
    }
}
