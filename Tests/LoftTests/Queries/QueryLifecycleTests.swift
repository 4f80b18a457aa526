import LoftTesting
import Observation
import TestSupport
import Testing

@testable import Loft

@Suite struct QueryLifecycleTests {
    @Test("garbage collection removes an unused entry after exactly gcTime, not before")
    func garbageCollection() async {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(60)))
        var query: Query<Void, Int>? = Query(
            key: "gc", behavior: .startImmediately(()), client: harness.client
        ) { 1 }
        await harness.client.waitUntilIdle()
        #expect(query?.state.value == 1)
        query = nil
        await harness.advance(by: .milliseconds(59_999))
        #expect(harness.client.existingEntry(for: "gc") != nil)
        await harness.advance(by: .milliseconds(1))
        #expect(harness.client.existingEntry(for: "gc") == nil)
        #expect(harness.events.values.contains { if case .removed("gc") = $0 { true } else { false } })
    }

    @Test("an observer that comes back before gcTime cancels the garbage collection")
    func garbageCollectionCancelled() async {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(60)))
        var query: Query<Void, Int>? = Query(key: "gc", behavior: .startImmediately(()), client: harness.client) { 1 }
        await harness.client.waitUntilIdle()
        query = nil
        await harness.advance(by: .seconds(30))
        let consumer = Query<Void, Int>.Consumer(key: "gc", client: harness.client)
        await harness.advance(by: .seconds(60))
        #expect(harness.client.existingEntry(for: "gc") != nil)
        #expect(consumer.state.value == 1)
        #expect(query == nil)
    }

    @Test("when the last observer leaves, a fetch that ignores cancellation finishes and is cached; gc starts after")
    func fetchOutlivesObservers() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(10)))
        let fetcher = ScriptedFetcher<Void, Int>(.hang(ignoresCancellation: true))
        var query: Query<Void, Int>? = Query(
            key: "slow", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await fetcher.waitForCalls(1)
        query = nil
        harness.scheduler.advance(by: .seconds(30))  // the fetch hangs, so the client is not idle
        #expect(harness.client.existingEntry(for: "slow") != nil)  // removal waits while the fetch runs
        fetcher.release(returning: 5)
        await harness.client.waitUntilIdle()
        #expect(try harness.client.getQueryData("slow", as: Int.self) == 5)
        await harness.advance(by: .seconds(10))
        #expect(harness.client.existingEntry(for: "slow") == nil)
        #expect(query == nil)
    }

    @Test("a consumer sees the producer's state; a consumer of an unfetched key is idle, then succeeds")
    func consumer() async {
        let harness = TestQueryClient()
        let consumer = Query<Void, String>.Consumer(key: "shared", client: harness.client)
        #expect(consumer.state.isIdle)
        let recorder = PublisherRecorder(consumer.statePublisher.map { "\($0)" })
        let producer = Query(key: "shared", behavior: .startImmediately(()), client: harness.client) { "hello" }
        await harness.client.waitUntilIdle()
        #expect(consumer.state.value == "hello")
        #expect(recorder.values.count == 3)  // idle, loading, succeed
        harness.client.setQueryData("changed", for: "shared")
        #expect(consumer.state.value == "changed")
        #expect(producer.state.value == "changed")
    }

    @Test("a Query, Consumer dropped by its owner is freed and leaves the entry's observers")
    func releasedObservers() async {
        let harness = TestQueryClient()
        weak var weakQuery: Query<Void, Int>?
        weak var weakConsumer: Query<Void, Int>.Consumer?
        do {
            let query = Query(key: "x", behavior: .startImmediately(()), client: harness.client) { 1 }
            let consumer = Query<Void, Int>.Consumer(key: "x", client: harness.client)
            let subscription = query.statePublisher.sink { _ in }
            weakQuery = query
            weakConsumer = consumer
            await harness.client.waitUntilIdle()
            #expect(harness.observerCount("x") == 2)
            _ = subscription
        }
        #expect(weakQuery == nil)
        #expect(weakConsumer == nil)
        #expect(harness.observerCount("x") == 0)
    }

    @Test("prefix invalidation marks every match stale but refetches only the active ones")
    func invalidation() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(600)))
        let fetcher = ScriptedFetcher<Int, Int>(.answer(1))
        let active = Query(
            key: "project", keyAdapter: { $0.appending($1).appending("issues") }, behavior: .startImmediately(7),
            client: harness.client, fetcher: fetcher.fetch)
        await harness.client.prefetchQuery(["project", 7, "members"]) { 2 }
        await harness.client.prefetchQuery(["project", 8, "issues"]) { 3 }
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        await harness.client.invalidateQueries(["project", 7]).settled()
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 2)
        #expect(harness.fetchReasons(for: ["project", 7, "issues"]) == [.firstUse, .invalidation])
        #expect(harness.fetchReasons(for: ["project", 7, "members"]) == [.prefetch])
        #expect(try harness.client.snapshot(for: ["project", 7, "members"], as: Int.self).isStale)
        #expect(try harness.client.snapshot(for: ["project", 8, "issues"], as: Int.self).isStale == false)
        await harness.client.invalidateQueries(["project"], refetchType: .inactive).settled()
        await harness.client.waitUntilIdle()
        #expect(harness.fetchReasons(for: ["project", 7, "members"]) == [.prefetch, .invalidation])
        #expect(fetcher.callCount == 2)
        _ = active
    }

    @Test("select applies per observer; the cache keeps the raw value")
    func select() async throws {
        let harness = TestQueryClient()
        let raw = Query<Void, [Int]>(key: "list", behavior: .startImmediately(()), client: harness.client) {
            [3, 1, 2]
        }
        let sorted = Query<Void, [Int]>.Consumer(
            key: "list", options: QueryOptions(select: { $0.sorted() }), client: harness.client)
        await harness.client.waitUntilIdle()
        #expect(raw.state.value == [3, 1, 2])
        #expect(sorted.state.value == [1, 2, 3])
        #expect(try harness.client.getQueryData("list", as: [Int].self) == [3, 1, 2])
    }

    @Test("placeholder data shows while loading, is marked, and is never written to the cache; initial data is")
    func placeholderAndInitialData() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, String>(.hang())
        let query = Query(
            key: "ph", behavior: .startImmediately(()), options: QueryOptions(placeholderData: .value("…")),
            client: harness.client, fetcher: fetcher.fetch)
        await fetcher.waitForCalls(1)
        #expect(query.state.value == "…")
        #expect(query.snapshot.isPlaceholderData)
        #expect(try harness.client.getQueryData("ph", as: String.self) == nil)
        fetcher.release(returning: "real")
        await harness.client.waitUntilIdle()
        #expect(query.snapshot.isPlaceholderData == false)

        let seeded = Query<Void, String>(
            key: "init", options: QueryOptions(staleTime: .seconds(60), initialData: "seed"), client: harness.client
        ) { "fetched" }
        #expect(seeded.state.value == "seed")
        #expect(try harness.client.getQueryData("init", as: String.self) == "seed")
        #expect(seeded.snapshot.isPlaceholderData == false)
    }

    @Test("keep-previous-data shows the previous key's data until the new key has its own")
    func keepPreviousData() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, String>(.answer("page 1"), .hang())
        let query = Query(
            key: "page", keyAdapter: { $0.appending($1) }, options: QueryOptions(placeholderData: .keepPrevious),
            client: harness.client, fetcher: fetcher.fetch)
        query.refetch(request: 1)
        await harness.client.waitUntilIdle()
        query.refetch(request: 2)
        await fetcher.waitForCalls(2)
        #expect(query.state.value == "page 1")
        #expect(query.snapshot.isPlaceholderData)
        fetcher.release(returning: "page 2")
        await harness.client.waitUntilIdle()
        #expect(query.state.value == "page 2")
        #expect(query.snapshot.isPlaceholderData == false)
    }

    @Test("structural sharing: a refetched value equal to the old one notifies no state observer")
    func structuralSharing() async {
        let harness = TestQueryClient()
        let query = Query<Void, User>(key: "same", behavior: .startImmediately(()), client: harness.client) {
            User(id: 1, name: "ada")
        }
        await harness.client.waitUntilIdle()
        let states = PublisherRecorder(query.statePublisher.map { "\($0)" })
        let values = PublisherRecorder(query.valuePublisher)
        query.refetch()
        await harness.client.waitUntilIdle()
        harness.client.setQueryData(User(id: 1, name: "ada"), for: "same")
        #expect(states.values.count == 1)  // the current state only
        #expect(values.values == [User(id: 1, name: "ada")])
        harness.client.setQueryData(User(id: 1, name: "grace"), for: "same")
        #expect(values.values.count == 2)
    }

    @Test("a typed read of a key with the wrong type is a typed error, not a crash")
    func typeMismatch() async {
        let harness = TestQueryClient()
        harness.client.setQueryData(42, for: "n")
        #expect(throws: QueryError.typeMismatch(key: "n", expected: "String", actual: "Int")) {
            try harness.client.getQueryData("n", as: String.self)
        }
        let wrong = Query<Void, String>.Consumer(key: "n", client: harness.client)
        #expect(wrong.snapshot.error as? QueryError == .typeMismatch(key: "n", expected: "String", actual: "Int"))
        await #expect(throws: QueryError.self) {
            _ = try await harness.client.fetchQuery("n", staleTime: .seconds(60)) { "text" }
        }
    }

    @Test("cancel restores the state from before the fetch; a cancelled first fetch ends in a typed error")
    func cancellation() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let query = Query(key: "c", client: harness.client, fetcher: fetcher.fetch)
        let caller = Task { try await query.value() }
        await fetcher.waitForCalls(1)
        #expect(query.state.isLoading)
        query.cancel()
        await #expect(throws: QueryError.cancelled(key: "c")) { try await caller.value }
        #expect(query.state.isIdle)
        #expect(query.snapshot.fetchStatus == .idle)

        harness.client.setQueryData(1, for: "c")
        fetcher.script(.hang())
        query.refetch()
        await fetcher.waitForCalls(2)
        query.cancel()
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 1)
        #expect(query.snapshot.status == .success)
        #expect(fetcher.hangingCount == 0)
    }

    @Test("every fetch records why it happened in the events")
    func fetchReasons() async {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(
            key: "why", behavior: .startImmediately(()), pollingBehavior: .pollEvery(.seconds(1)),
            client: harness.client
        ) { 1 }
        await harness.client.waitUntilIdle()
        query.invalidate()
        await harness.client.waitUntilIdle()
        query.refetch()
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(1))
        #expect(harness.fetchReasons(for: "why") == [.firstUse, .invalidation, .manual, .interval])
        #expect(harness.events.values.first.map { "\($0)" } == "added why")
    }

    @Test("Observation: a change of state reaches withObservationTracking")
    func observation() async {
        let harness = TestQueryClient()
        let query = Query<Void, Int>(key: "obs", client: harness.client) { 1 }
        let changed = Box(false)
        withObservationTracking {
            _ = query.state
        } onChange: {
            changed.value = true
        }
        query.refetch()
        await harness.client.waitUntilIdle()
        #expect(changed.value)
    }

    @Test("setQueriesData updates one entity wherever it is cached")
    func setQueriesData() {
        let harness = TestQueryClient()
        harness.client.setQueryData([User(id: 1, name: "ada"), User(id: 2, name: "bob")], for: ["users", "list"])
        harness.client.setQueryData([User(id: 1, name: "ada")], for: ["users", "admins"])
        harness.client.setQueryData("unrelated", for: ["users", "title"])
        let changed = harness.client.setQueriesData(matching: "users", as: [User].self) { users in
            users.map { $0.id == 1 ? User(id: 1, name: "Ada Lovelace") : $0 }
        }
        #expect(Set(changed) == [["users", "list"], ["users", "admins"]])
        #expect(
            (try? harness.client.getQueryData(["users", "admins"], as: [User].self))?.first?.name == "Ada Lovelace")
    }

    @Test("many threads fetching, invalidating, subscribing and cancelling on a few keys keep the invariants")
    func stress() async {
        let harness = TestQueryClient()
        let keys: [QueryKey] = ["a", "b", "c"]
        let counter = Box(0)
        let queries = keys.map { key in
            Query<Void, Int>(key: key, client: harness.client) {
                counter.mutate {
                    $0 += 1; return $0
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<200 {
                        let query = queries[(worker + round) % queries.count]
                        switch round % 4 {
                        case 0: query.refetch()
                        case 1: harness.client.invalidateQueries(query.key)
                        case 2: _ = PublisherRecorder(query.statePublisher)
                        default: query.cancel()
                        }
                    }
                }
            }
        }
        await harness.client.waitUntilIdle()
        for query in queries {
            #expect(query.snapshot.fetchStatus == .idle)
            #expect(harness.observerCount(query.key) == 1)
        }
        #expect(harness.client.isFetching() == 0)
    }
}
