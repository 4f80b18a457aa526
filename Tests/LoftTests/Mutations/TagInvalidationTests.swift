import LoftTesting
import TestSupport
import Testing

@testable import Loft

/// Declarative invalidation: queries declare tags, mutations name what they invalidate.
@Suite struct TagInvalidationTests {
    /// Four entries, fresh for good unless invalidated: two todos, a todo list, and an untagged user.
    private static func fourEntries(_ harness: TestQueryClient) async throws {
        let client = harness.client
        _ = try await client.fetchQuery(["todo", 7], tags: ["todos", ["todo", 7]]) { 7 }
        _ = try await client.fetchQuery(["todo", 8], tags: ["todos", ["todo", 8]]) { 8 }
        _ = try await client.fetchQuery(["lists", "mine"], tags: ["todos"]) { 78 }
        _ = try await client.fetchQuery(["todo", 9]) { 9 }  // untagged, under the same key prefix
    }

    private static func stale(_ harness: TestQueryClient) throws -> [QueryKey] {
        let keys: [QueryKey] = [["todo", 7], ["todo", 8], ["lists", "mine"], ["todo", 9]]
        return try keys.filter { try harness.client.snapshot(for: $0, as: Int.self).isStale }
    }

    @Test("invalidation by tag reaches exactly the entries with a tag it covers")
    func exactlyTheTagged() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        try await Self.fourEntries(harness)
        #expect(try Self.stale(harness).isEmpty)
        await harness.client.invalidateQueries(tagged: ["todo", 8]).settled()
        #expect(try Self.stale(harness) == [["todo", 8]])
        await harness.client.invalidateQueries(tagged: "todo").settled()
        #expect(try Self.stale(harness) == [["todo", 7], ["todo", 8]])
        await harness.client.invalidateQueries(tagged: "todos").settled()
        #expect(try Self.stale(harness) == [["todo", 7], ["todo", 8], ["lists", "mine"]])
        #expect(harness.client.tags(of: ["todo", 7]) == ["todos", ["todo", 7]])
        #expect(harness.client.tags(of: ["todo", 9]).isEmpty)
    }

    @Test("a query's tags reach its entry, and the active ones refetch; a removed entry loses its tags")
    func queryTags() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2))
        let query = Query<Void, Int>(
            key: ["todo", 7], behavior: .startImmediately(()), options: QueryOptions(tags: ["todos"]),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        await harness.client.invalidateQueries(tagged: "todos").settled()
        #expect(query.state.value == 2)
        #expect(harness.fetchReasons(for: ["todo", 7]) == [.firstUse, .invalidation])
        harness.client.removeQueries(["todo", 7])
        #expect(harness.client.tags(of: ["todo", 7]).isEmpty)
    }

    @Test("a mutation invalidates what it names on success, before its state turns success")
    func mutationInvalidates() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        try await Self.fourEntries(harness)
        let seenWhenSucceeded = Box<[QueryKey]?>(nil)
        let rename = Mutation<Int, Int>(
            client: harness.client,
            options: MutationOptions(invalidates: { result, id in
                #expect((try? result.get()) == id * 10)
                return [.tag(QueryTag("todo", id)), .exact(["todo", 9])]
            })
        ) { $0 * 10 }
        let subscription = rename.statePublisher.sink { state in
            if state.value != nil { seenWhenSucceeded.value = try? Self.stale(harness) }
        }
        try await rename.mutate(7)
        #expect(seenWhenSucceeded.value == [["todo", 7], ["todo", 9]])
        subscription.cancel()
    }

    @Test("a failed call invalidates nothing by default, and what it names with .settled")
    func failure() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        try await Self.fourEntries(harness)
        let outcomes = Box<[String]>([])
        let fail = { (moment: InvalidationMoment) in
            Mutation<Int, Int>(
                client: harness.client,
                options: MutationOptions(
                    invalidates: { result, _ in
                        outcomes.mutate { $0.append("\(result)") }
                        return [.tag("todos")]
                    }, invalidatesWhen: moment)
            ) { _ in throw APIError.status(500) }
        }
        await #expect(throws: APIError.status(500)) { try await fail(.succeeded).mutate(1) }
        #expect(outcomes.value.isEmpty)
        #expect(try Self.stale(harness).isEmpty)
        await #expect(throws: APIError.status(500)) { try await fail(.settled).mutate(1) }
        #expect(outcomes.value == ["failure(LoftTests.APIError.status(500))"])
        #expect(try Self.stale(harness) == [["todo", 7], ["todo", 8], ["lists", "mine"]])
    }

    @Test("a throwing onSuccess fails the call, but the server's success still invalidates")
    func throwingCallbackStillInvalidates() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        try await Self.fourEntries(harness)
        let mutation = Mutation<Int, Int>(
            client: harness.client,
            options: MutationOptions(
                onSuccess: { _, _, _ in throw APIError.offline }, invalidates: { _, _ in [.prefix(["lists"])] })
        ) { $0 }
        await #expect(throws: APIError.offline) { try await mutation.mutate(1) }
        #expect(try Self.stale(harness) == [["lists", "mine"]])
    }

    @Test("invalidate(_:) reaches the union of what its targets name, by tag, prefix or key")
    func targets() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        try await Self.fourEntries(harness)
        await harness.client.invalidate([.tag(["todo", 7]), .exact(["lists", "mine"])], refetchType: .none).settled()
        #expect(try Self.stale(harness) == [["todo", 7], ["lists", "mine"]])
        await harness.client.invalidate([.tag("todos"), .prefix(["todo"])], refetchType: .none).settled()
        #expect(try Self.stale(harness) == [["todo", 7], ["todo", 8], ["lists", "mine"], ["todo", 9]])
    }
}
