import LoftTesting
import Testing

@testable import Loft

@Suite struct QueriesTests {
    @Test("combine runs once per member change and is memoised; the publisher sends once per change")
    func memoised() async {
        let harness = TestQueryClient()
        let combineCalls = Locked(0)
        let name = ScriptedFetcher<Void, String>(.hang())
        let count = ScriptedFetcher<Void, Int>(.hang())
        let queries = Queries(
            [
                QueriesMember(key: "name") { try await name.fetch(()) },
                QueriesMember(key: "count") { try await count.fetch(()) },
            ],
            client: harness.client
        ) { results in
            combineCalls.withLock { $0 += 1 }
            return
                "\(results.value(for: "name", as: String.self) ?? "?") \(results.value(for: "count", as: Int.self) ?? 0)"
        }
        await name.waitForCalls(1)
        await count.waitForCalls(1)
        let recorder = PublisherRecorder(queries.combinedPublisher)
        #expect(queries.combined == "? 0")
        #expect(queries.results.isPending)
        let callsBefore = combineCalls.withLock { $0 }
        _ = queries.combined
        _ = queries.combined
        #expect(combineCalls.withLock { $0 } == callsBefore)

        name.release(returning: "Ada")
        // `count` still hangs, so wait for the combined value rather than for idleness.
        for await value in queries.combinedPublisher.values where value == "Ada 0" { break }
        count.release(returning: 3)
        await harness.client.waitUntilIdle()
        #expect(queries.combined == "Ada 3")
        #expect(!queries.results.isPending)
        // One value on subscribing, then one per member change (each member: its data and its fetch status
        // change together, in one notification).
        #expect(recorder.values == ["? 0", "Ada 0", "Ada 3"])
        #expect(combineCalls.withLock { $0 } == callsBefore + 2)
    }

    @Test("refetch and invalidate return handles: value waits for every member, then gives the new combination")
    func handlesAwaitTheMembers() async {
        let harness = TestQueryClient()
        let a = ScriptedFetcher<Void, Int>(.answer(1), .answer(10), .answer(100))
        let b = ScriptedFetcher<Void, Int>(.answer(2), .answer(20), .answer(200))
        let queries = Queries(
            [QueriesMember(key: "a") { try await a.fetch(()) }, QueriesMember(key: "b") { try await b.fetch(()) }],
            client: harness.client
        ) { results in
            results.keys.compactMap { results.value(for: $0, as: Int.self) }.reduce(0, +)
        }
        await harness.client.waitUntilIdle()
        #expect(queries.combined == 3)
        let refetched = queries.refetch()
        #expect(refetched.count == 2)
        #expect(await refetched.value == 30)
        #expect(await queries.invalidate().value == 300)
        #expect(a.callCount == 3 && b.callCount == 3)
    }

    @Test("invalidate, refetch and cancel act on every member; an equal combined result is not sent again")
    func controlsActOnEveryMember() async {
        let harness = TestQueryClient()
        let calls = Locked<[QueryKey: Int]>([:])
        func member(_ key: QueryKey) -> QueriesMember {
            QueriesMember(key: key) { () async throws -> Int in
                calls.withLock { $0[key, default: 0] += 1 }
                return 1
            }
        }
        let queries = Queries([member("a"), member("b")], client: harness.client) { results in
            results.keys.compactMap { results.value(for: $0, as: Int.self) }.reduce(0, +)
        }
        await harness.client.waitUntilIdle()
        let recorder = PublisherRecorder(queries.combinedPublisher)
        queries.invalidate()
        await harness.client.waitUntilIdle()
        #expect(calls.withLock { $0 } == ["a": 2, "b": 2])
        queries.refetch()
        await harness.client.waitUntilIdle()
        #expect(calls.withLock { $0 } == ["a": 3, "b": 3])
        #expect(queries.combined == 2)
        #expect(recorder.values == [2])

        let hanging = ScriptedFetcher<Void, Int>(.hang())
        let slow = Queries([QueriesMember(key: "slow") { try await hanging.fetch(()) }], client: harness.client) {
            $0.isPending
        }
        await hanging.waitForCalls(1)
        #expect(harness.client.existingEntry(for: "slow")?.snapshot.fetchStatus == .fetching)
        slow.cancel()
        await harness.client.waitUntilIdle()
        #expect(harness.client.existingEntry(for: "slow")?.snapshot.fetchStatus == .idle)
        #expect(slow.combined)
    }

    @Test("setMembers reuses members by key, starts new ones, and releases the rest")
    func membersByKey() async {
        let harness = TestQueryClient()
        let calls = Locked<[QueryKey: Int]>([:])
        func member(_ key: QueryKey) -> QueriesMember {
            QueriesMember(key: key) { () async throws -> Int in
                calls.withLock { $0[key, default: 0] += 1 }
                return key.description.count
            }
        }
        let queries = Queries([member("a"), member("bb")], client: harness.client) { results in
            results.keys.compactMap { results.value(for: $0, as: Int.self) }.reduce(0, +)
        }
        await harness.client.waitUntilIdle()
        #expect(queries.combined == 3)
        queries.setMembers([member("bb"), member("ccc")])
        await harness.client.waitUntilIdle()
        #expect(queries.combined == 5)
        #expect(calls.withLock { $0 } == ["a": 1, "bb": 1, "ccc": 1])
        #expect(harness.observerCount("a") == 0)
        #expect(harness.observerCount("bb") == 1)
        #expect(queries.results.keys == ["bb", "ccc"])
    }

    @Test("results are looked up by key and type; failures are listed by key")
    func lookups() async {
        let harness = TestQueryClient()
        let queries = Queries(
            [
                QueriesMember(key: "user") { User(id: 1, name: "Ada") },
                QueriesMember(key: "broken", options: QueryOptions<Int>(retry: .never)) { throw APIError.offline },
            ],
            client: harness.client
        ) { $0 }
        await harness.client.waitUntilIdle()
        let results = queries.combined
        #expect(results.value(for: "user", as: User.self)?.name == "Ada")
        #expect(results.state(for: "user", as: Int.self) == nil)
        #expect(results.state(for: "missing", as: Int.self) == nil)
        #expect(results.errors.keys.map(\.self) == ["broken"])
    }

    @Test("released, its members leave their entries")
    func release() async {
        let harness = TestQueryClient()
        var queries: Queries<Int>? = Queries([QueriesMember(key: "a") { 1 }], client: harness.client) { _ in 0 }
        await harness.client.waitUntilIdle()
        weak let watched = queries
        #expect(harness.observerCount("a") == 1)
        queries = nil
        #expect(watched == nil)
        #expect(harness.observerCount("a") == 0)
    }
}
