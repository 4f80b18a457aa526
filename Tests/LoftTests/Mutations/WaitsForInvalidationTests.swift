import LoftTesting
import Testing

@testable import Loft

/// Point 2 of the day-one API: whether `mutate` waits for the refetches its invalidation starts, with a list
/// whose refetch answers only when the test releases it (a slow server).
@Suite struct WaitsForInvalidationTests {
    private func harness() async -> (TestQueryClient, ScriptedFetcher<Void, [String]>, Query<Void, [String]>) {
        let harness = TestQueryClient()
        let list = ScriptedFetcher<Void, [String]>(.answer(["ada"]), .hang())
        let query = Query(key: "names", behavior: .startImmediately(()), client: harness.client, fetcher: list.fetch)
        await harness.client.waitUntilIdle()
        return (harness, list, query)
    }

    @Test("waitsForInvalidation: mutate returns, and the call succeeds, once the invalidated list is refetched")
    func mutateWaitsForTheRefetch() async throws {
        let (harness, list, query) = await harness()
        let create = Mutation<String, String>(
            client: harness.client,
            options: MutationOptions(invalidates: { _, _ in [.prefix("names")] }, waitsForInvalidation: true)
        ) { $0 }
        let returned = Locked(false)
        let call = Task {
            _ = try await create.mutate("bob")
            returned.withLock { $0 = true }
            return query.state.value
        }
        await list.waitForCalls(2)
        #expect(!returned.withLock { $0 }, "the refetch still hangs, so mutate has not returned")
        #expect(create.status == .pending)
        list.release(returning: ["ada", "bob"])
        #expect(try await call.value == ["ada", "bob"], "the list holds the new data when mutate returns")
        #expect(create.status == .success)
    }

    @Test("by default a call settles as soon as it invalidated: mutate does not wait for the refetch")
    func mutateDoesNotWaitByDefault() async throws {
        let (harness, list, query) = await harness()
        let create = Mutation<String, String>(
            client: harness.client, options: MutationOptions(invalidates: { _, _ in [.prefix("names")] })
        ) { $0 }
        _ = try await create.mutate("bob")
        #expect(query.state.value == ["ada"], "returned while the refetch hangs")
        await list.waitForCalls(2)
        list.release(returning: ["ada", "bob"])
        await harness.client.waitUntilIdle()
        #expect(query.state.value == ["ada", "bob"])
    }

    @Test("the invalidator handed to execute's onSuccess returns the refetches, which an options' onSuccess awaits")
    func invalidatorReturnsTheRefetches() async throws {
        let (harness, list, query) = await harness()
        let client = harness.client
        let create = Mutation<String, String>(
            client: client,
            options: MutationOptions(onSuccess: { _, _, _ in await client.invalidateQueries("names").settled() })
        ) { $0 }
        let call = Task {
            _ = try await create.mutate("bob")
            return query.state.value
        }
        await list.waitForCalls(2)
        list.release(returning: ["ada", "bob"])
        #expect(try await call.value == ["ada", "bob"])
        let invalidator = QueryInvalidator(client: client)
        list.script(.answer(["ada", "bob", "cy"]))
        await invalidator("names").settled()
        #expect(query.state.value == ["ada", "bob", "cy"])
    }
}
