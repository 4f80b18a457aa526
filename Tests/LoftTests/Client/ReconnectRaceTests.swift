import LoftTesting
import Synchronization
import Testing

@testable import Loft

/// The triggers reach every entry before the fetches paused for the network or the focus go on: a trigger then
/// joins the paused fetch, whatever thread finishes it first, so each paused fetch makes one request.
///
/// Serialized: with the pool free, the woken fetches run beside the trigger loop, which is where the race was
/// (with the triggers sent after the resumes, these rounds made 3,585–3,837 requests).
@Suite(.serialized) struct ReconnectRaceTests {
    @Test("a condition change runs the triggers before it resumes a waiter of that condition")
    func triggersRunBeforeWaitersResume() {
        let environment = ClientEnvironment()
        let order = Locked<[String]>([])
        environment.update { $0.isOnline = false }
        _ = environment.wait(until: \.isOnline) { order.withLock { $0.append("resumed") } }
        environment.update({ $0.isOnline = true }) { previous in
            #expect(!previous.isOnline)
            order.withLock { $0.append("triggers") }
        }
        #expect(order.withLock { $0 } == ["triggers", "resumed"])
    }

    @Test("3,000 queries paused offline make exactly 3,000 requests on reconnect", arguments: 1...20)
    func reconnectMakesOneRequestPerPausedQuery(round: Int) async {
        let harness = TestQueryClient()
        harness.client.setOnline(false)
        let calls = Atomic<Int>(0)
        let queries = (0..<3_000).map { (index: Int) in
            Query<Void, Int>(
                key: QueryKey("race", round, index), behavior: .startImmediately(()), client: harness.client
            ) {
                calls.add(1, ordering: .relaxed)
                return index
            }
        }
        // Every fetch's task waits for the network now (a waiting task does not count as busy).
        await harness.client.waitUntilIdle()
        #expect(harness.client.isFetching(filter: QueryFilter(fetchStatus: .paused)) == 3_000)
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        #expect(calls.load(ordering: .relaxed) == 3_000)
        #expect(queries.allSatisfy { $0.state.value != nil })
    }

    @Test("queries whose retry waited unfocused make one request each when focus comes back", arguments: 1...5)
    func focusMakesOneRequestPerPausedRetry(round: Int) async {
        let harness = TestQueryClient(defaults: QueryDefaults(retry: .count(1)))
        let calls = Atomic<Int>(0)
        let queries = (0..<1_000).map { (index: Int) in
            Query<Void, Int>(
                key: QueryKey("focus", round, index), behavior: .startImmediately(()), client: harness.client
            ) {
                // The first attempt fails; its retry comes due while unfocused and waits.
                if calls.add(1, ordering: .relaxed).newValue <= 1_000 { throw APIError.offline }
                return index
            }
        }
        await harness.client.waitUntilIdle()
        harness.client.setFocused(false)
        await harness.advance(by: .seconds(1))
        #expect(calls.load(ordering: .relaxed) == 1_000)
        harness.client.setFocused(true)
        await harness.client.waitUntilIdle()
        #expect(calls.load(ordering: .relaxed) == 2_000)
        #expect(queries.allSatisfy { $0.state.value != nil })
    }
}
