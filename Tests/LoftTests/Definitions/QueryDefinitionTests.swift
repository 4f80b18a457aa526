import LoftTesting
import Testing

/// A definition is a front over the key-based calls: each test does with a definition what the same call
/// does with its key, and checks that both see one entry.
@Suite(.timeLimit(.minutes(1))) struct QueryDefinitionTests {
    struct Profile: Sendable, Equatable {
        let id: Int
        let name: String
    }

    static let profile = QueryDefinition<Int, Profile>(
        key: "profile", keyAdapter: { key, id in key.appending(id) },
        options: QueryOptions(staleTime: .seconds(60), tags: ["people"])
    ) { id in Profile(id: id, name: "user \(id)") }

    static let motd = QueryDefinition<Void, String>(key: "motd") { "hello" }

    @Test("the key of a request is the adapter's; without one, the base key")
    func keys() {
        #expect(Self.profile.key(for: 42) == ["profile", 42])
        #expect(Self.motd.key == "motd")
        #expect(Self.motd.key(for: ()) == "motd")
    }

    @Test("fetchQuery, getQueryData, snapshot and setQueryData with a definition read and write the key's entry")
    func clientCalls() async throws {
        let test = TestQueryClient()
        let client = test.client
        let fetched = try await client.fetchQuery(Self.profile, 42)
        #expect(fetched == Profile(id: 42, name: "user 42"))
        #expect(try client.getQueryData(["profile", 42], as: Profile.self) == fetched)
        #expect(try client.getQueryData(Self.profile, 42) == fetched)
        #expect(try client.snapshot(for: Self.profile, 42).data == fetched)
        client.setQueryData(Profile(id: 42, name: "Ada"), for: Self.profile, 42)
        #expect(try client.getQueryData(Self.profile, 42)?.name == "Ada")
        // Fresh for the definition's staleTime: answered from the cache, not the fetcher.
        #expect(try await client.fetchQuery(Self.profile, 42).name == "Ada")
        #expect(try await client.ensureQueryData(Self.profile, 7).id == 7)
        await client.prefetchQuery(Self.profile, 8)
        #expect(try client.getQueryData(Self.profile, 8)?.id == 8)
        #expect(client.tags(of: ["profile", 8]) == ["people"])

        #expect(try await client.fetchQuery(Self.motd) == "hello")
        #expect(try client.getQueryData(Self.motd) == "hello")
        client.setQueryData("bye", for: Self.motd)
        #expect(try client.snapshot(for: Self.motd).data == "bye")
        #expect(try await client.ensureQueryData(Self.motd) == "bye")
        await client.prefetchQuery(Self.motd)
    }

    @Test("invalidateQueries with a definition invalidates every request's entry: the base key as prefix")
    func invalidation() async throws {
        let test = TestQueryClient()
        _ = try await test.client.fetchQuery(Self.profile, 1)
        _ = try await test.client.fetchQuery(Self.profile, 2)
        _ = try await test.client.fetchQuery(Self.motd)
        #expect(test.client.invalidateQueries(Self.profile).count == 2)
        #expect(test.client.existingEntry(for: ["profile", 1])?.snapshot.isInvalidated == true)
        #expect(test.client.existingEntry(for: "motd")?.snapshot.isInvalidated == false)
    }

    @Test("Query and Consumer made from a definition share the key's entry, typed by it")
    func queryAndConsumer() async {
        let test = TestQueryClient()
        let query = Query(Self.profile, behavior: .startImmediately(5), client: test.client)
        let header = Consumer(Self.profile, 5, client: test.client)
        let banner = Consumer(Self.motd, client: test.client)
        await test.until { header.state.value != nil }
        #expect(query.state.value == Profile(id: 5, name: "user 5"))
        #expect(header.state.value?.name == "user 5")
        #expect(query.options.staleTime == .seconds(60))
        let motd = Query(Self.motd, behavior: .startImmediately(()), client: test.client)
        await test.until { banner.state.value != nil }
        #expect(motd.state.value == "hello")
    }
}

@Suite(.timeLimit(.minutes(1))) struct MutationDefinitionTests {
    static let rename = MutationDefinition<String, Int>(key: ["names", "rename"]) { name in name.count }
    static let add = MutationDefinition<String, String>(key: ["names", "add"]) { name, call in
        "\(name) #\(call.idempotencyKey.isEmpty ? 0 : 1)"
    }

    @Test("a Mutation made from a definition has its key and fetcher")
    func mutation() async throws {
        let test = TestQueryClient()
        let rename = Mutation(Self.rename, client: test.client)
        #expect(try await rename.execute(with: "Grace").response == 5)
        #expect(test.client.mutations(matching: MutationFilter(key: ["names"])).count == 1)
        let add = Mutation(Self.add, client: test.client)
        #expect(try await add.execute(with: "Ada").response == "Ada #1")
    }

    @Test("setMutationDefaults with a definition gives its options to the mutations under its key")
    func defaults() async throws {
        let test = TestQueryClient()
        let withRetry = MutationDefinition<String, Int>(
            key: ["names", "count"], options: MutationOptions(retry: .count(2))
        ) { name in name.count }
        test.client.setMutationDefaults(withRetry)
        // A mutation under the key, with no retry of its own, retries by the definition's options.
        let fetcher = ScriptedFetcher<String, Int>(.fail(APIError.offline), .answer(3))
        let plain = Mutation<String, Int>(
            client: test.client, options: MutationOptions(mutationKey: ["names", "count", "more"]),
            fetcher: fetcher.fetch)
        let call = plain.execute(with: "Ada")
        await fetcher.waitForCalls(1)
        await test.waitUntilIdle()
        await test.advance(by: .seconds(1))
        #expect(try await call.response == 3)
        #expect(fetcher.callCount == 2)
        #expect(withRetry.options.mutationKey == ["names", "count"])
    }
}
