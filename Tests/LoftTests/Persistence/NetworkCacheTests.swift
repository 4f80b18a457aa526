import Foundation
import LoftTesting
import Testing

@testable import Loft

/// A client on a network cache (`AsyncQueryCacheType`): every call awaited, none blocking a thread; a store
/// that hangs holds only what needs it; failures are events; values applied from another client are not
/// written back.
@Suite(.timeLimit(.minutes(1))) struct NetworkCacheTests {
    static let instead = QueryCacheConfig(usagePolicy: .useInsteadOfFetching)

    static func seeded(_ values: [QueryKey: Int], at instant: SchedulerInstant = TestScheduler.epoch) async throws
        -> TestNetworkCache
    {
        let store = TestNetworkCache()
        for (key, value) in values { try await store.save(value, for: key, savedAt: instant, expiresAt: nil) }
        return store
    }

    @Test("a valid stored value answers a fetch without the fetcher, read with one awaited call")
    func storedValueAnswers() async throws {
        let store = try await Self.seeded([["n", 1]: 7])
        let test = TestQueryClient(cache: store, cacheConfig: Self.instead)
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1))
        #expect(try await test.client.fetchQuery(["n", 1], fetcher: { try await fetcher.fetch(()) }) == 7)
        #expect(fetcher.callCount == 0)
        // The restore of the new entry and the fetch's check share one read.
        #expect(store.calls.filter { $0 == .get(["n", 1]) }.count == 1)
        #expect(test.events.values.contains { if case .restored(["n", 1]) = $0 { true } else { false } })
    }

    @Test("more hung reads than the pool has threads leave another key answering: no thread waits on the store")
    func hungReadsBlockNoThread() async throws {
        let hung = (0..<64).map { QueryKey(parts: ["hung", .int($0)]) }
        let store = try await Self.seeded([["free"]: 3])
        store.setMode(.hanging(keys: Set(hung)))
        let test = TestQueryClient(cache: store, cacheConfig: Self.instead)
        let client = test.client
        let waiting = hung.map { key in Task { try await client.fetchQuery(key) { 0 } } }
        await store.waitUntilHeld(hung.count)
        // Every read above waits for the store; this one, of another key, is answered.
        #expect(try await client.fetchQuery(["free"]) { 0 } == 3)
        // Data already in memory is served while its key's store hangs too.
        client.setQueryData(5, for: ["memory"])
        store.setMode(.hanging(keys: nil))
        #expect(try await client.fetchQuery(["memory"], staleTime: .seconds(60)) { 0 } == 5)
        store.setMode(.answering)
        for task in waiting { #expect(try await task.value == 0) }
        await test.waitUntilIdle()
    }

    @Test("a read that fails is a miss reported as persistenceFailed: the fetcher answers")
    func failedReadIsAMiss() async throws {
        let store = TestNetworkCache()
        let failure = CacheError.timedOut(store: "test", operation: "read", seconds: 5)
        store.setMode(.failing(failure))
        let test = TestQueryClient(cache: store, cacheConfig: Self.instead)
        #expect(try await test.client.fetchQuery(["n"]) { 9 } == 9)
        await test.waitUntilIdle()
        let failures = test.events.values.compactMap { event -> CacheError? in
            if case .persistenceFailed(["n"], let error) = event { return error as? CacheError }
            return nil
        }
        // The read, then the save of the fetched value.
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0 == failure })
    }

    @Test("a stored value of another type is a miss named in the event: the fetched value replaces it")
    func undecodableRowIsAMiss() async throws {
        let store = TestNetworkCache()
        try await store.save("text", for: ["n"], savedAt: TestScheduler.epoch, expiresAt: nil)
        let test = TestQueryClient(cache: store, cacheConfig: Self.instead)
        #expect(try await test.client.fetchQuery(["n"]) { 4 } == 4)
        await test.waitUntilIdle()
        let reported = test.events.values.contains { event in
            guard case .persistenceFailed(["n"], let error) = event,
                case .undecodableValue(["n"], _, "Int", _) = error as? CacheError
            else { return false }
            return true
        }
        #expect(reported)
        #expect(try await store.get(Int.self, for: ["n"])?.value == 4)
    }

    @Test("saves are written behind the caller and awaited: a hung save holds nothing but waitUntilIdle")
    func savesAreAwaitedBehind() async throws {
        let store = TestNetworkCache()
        store.setMode(.hanging(keys: nil))
        let test = TestQueryClient(cache: store, cacheConfig: Self.instead)
        test.client.setQueryData(1, for: ["a"])
        await store.waitUntilHeld(1)
        // The first save waits for the store; the caller goes on, and the next values queue behind it.
        test.client.setQueryData(2, for: ["a"])
        test.client.setQueryData(3, for: ["a"])
        #expect(try test.client.getQueryData(["a"], as: Int.self) == 3)
        store.setMode(.answering)
        await test.waitUntilIdle()
        #expect(try await store.get(Int.self, for: ["a"])?.value == 3)
        // 1, then only the latest of the queued ones.
        #expect(store.calls.filter { $0 == .save(["a"]) }.count == 2)
    }

    @Test("useAndThenFetch: a query that appears shows the stored value, then fetches")
    func restoreThenFetch() async throws {
        let store = try await Self.seeded([["me"]: 1])
        let test = TestQueryClient(cache: store, cacheConfig: QueryCacheConfig(usagePolicy: .useAndThenFetch))
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let query = Query(key: "me", behavior: .startImmediately(()), client: test.client, fetcher: fetcher.fetch)
        await test.until { query.state.value == 1 }
        #expect(query.snapshot.isRestored)
        await fetcher.waitForCalls(1)
        fetcher.release(returning: 2)
        await test.until { query.state.value == 2 }
        await test.waitUntilIdle()
        #expect(try await store.get(Int.self, for: ["me"])?.value == 2)
    }

    @Test("useIfFetchFails: a failed fetch shows the stored value, read from the network store")
    func fallbackFromTheStore() async throws {
        let store = try await Self.seeded([["me"]: 1])
        let test = TestQueryClient(cache: store, cacheConfig: QueryCacheConfig(usagePolicy: .useIfFetchFails))
        struct Down: Error {}
        let value = try await test.client.fetchQuery(["me"]) { () async throws -> Int in throw Down() }
        #expect(value == 1)
        #expect(test.client.existingEntry(for: ["me"])?.snapshot.isRestored == true)
    }

    @Test("a value applied from another client is not saved back to a network cache, but is to a local one")
    func appliedValuesAreNotWrittenBack() async throws {
        let store = TestNetworkCache()
        let network = TestQueryClient(cache: store, cacheConfig: Self.instead)
        network.client.setQueryData(1, for: ["k"])
        await network.waitUntilIdle()
        #expect(store.calls == [.save(["k"])])
        network.client.apply(SharedChange(.setData(json: "2"), [.exact(["k"])]))
        await network.waitUntilIdle()
        #expect(try network.client.getQueryData(["k"], as: Int.self) == 2)
        #expect(store.calls == [.save(["k"])])

        let memory = InMemoryQueryCache()
        let local = TestQueryClient(cache: memory, cacheConfig: Self.instead)
        local.client.setQueryData(1, for: ["k"])
        local.client.apply(SharedChange(.setData(json: "2"), [.exact(["k"])]))
        await local.waitUntilIdle()
        #expect(try memory.get(for: ["k"], as: Int.self) == 2)
    }

    @Test("the client tells which cache it has: a network one is not a local one")
    func clientNamesItsCache() {
        let store = TestNetworkCache()
        let client = QueryClient(cache: store)
        #expect(client.cache == nil)
        #expect(client.networkCache as? TestNetworkCache === store)
    }
}
