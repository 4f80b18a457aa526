import LoftTesting
import Testing

@testable import Loft

/// A focus or reconnect pass makes its fetches' tasks once it has sent its events (`FetchStartBatch`): every
/// fetch is started, and its task made, before the call returns.
@Suite(.timeLimit(.minutes(1))) struct FetchStartBatchTests {
    @Test("setFocused(true) returns with each stale query fetching and its task made: the fetcher is called")
    func fetchingWhenTheCallReturns() async {
        let harness = TestQueryClient()
        let fetchers = (0..<3).map { _ in ScriptedFetcher<Void, Int>(.answer(1), .hang()) }
        let queries = fetchers.enumerated().map { index, fetcher in
            Query(
                key: QueryKey("focus", index), behavior: .startImmediately(()), client: harness.client,
                fetcher: fetcher.fetch)
        }
        await harness.client.waitUntilIdle()
        harness.client.setFocused(false)
        harness.client.setFocused(true)
        for query in queries { #expect(query.snapshot.isFetching, "fetching when setFocused returns") }
        for fetcher in fetchers { await fetcher.waitForCalls(2) }
        #expect(harness.client.isFetching(["focus"]) == 3)
        for fetcher in fetchers { fetcher.release(returning: 2) }
        await harness.client.waitUntilIdle()
        #expect(queries.allSatisfy { $0.state.value == 2 })
    }

    @Test("a task made during a pass inherits its batch; a fetch it starts after the pass makes its task at once")
    func taskMadeDuringThePass() async throws {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(key: "later", client: harness.client) { 7 }
        let gate = ScriptedFetcher<Void, Int>(.hang())
        var inherited: Task<Int, any Error>?
        FetchStartBatch.run {
            inherited = Task {
                _ = try? await gate.fetch(())
                #expect(FetchStartBatch.current != nil, "the task inherits the pass's batch")
                return try await query.refetch().value
            }
        }
        await gate.waitForCalls(1)
        gate.release(returning: 0)
        #expect(try await inherited?.value == 7)
    }
}
