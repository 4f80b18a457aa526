import Foundation
import LoftTesting
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Queries with a persistent cache: what a user sees at start-up under each usage policy, write-through, and
/// every failure turned into an event.
@Suite struct QueryPersistenceTests {
    let folder = TemporaryDirectory()
    static let noRetry = QueryOptions<User>(retry: .never)

    /// A client of a fresh process: a new clock at the same epoch and a new cache instance on the same folder.
    func launch(_ config: QueryCacheConfig, fileSystem: (any FileSystem)? = nil) -> TestQueryClient {
        folder.launch(config, fileSystem: fileSystem ?? POSIXFileSystem())
    }

    /// A first run that fetched and saved `user`.
    func firstRun(saving user: User = User(id: 1, name: "Ada")) async {
        let harness = launch(QueryCacheConfig())
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client
        ) { user }
        await harness.client.waitUntilIdle()
        #expect(query.state.value == user)
    }

    func persistenceErrors(_ harness: TestQueryClient) -> [CacheError] {
        harness.events.values.compactMap {
            if case .persistenceFailed(_, let error) = $0 { return error as? CacheError }
            return nil
        }
    }

    func stored(_ key: QueryKey) throws -> User? {
        try folder.stored(key)
    }

    @Test("useAndThenFetch: the stored value shows at once on start-up, then the fetch replaces it")
    func useAndThenFetch() async throws {
        await firstRun()
        let harness = launch(QueryCacheConfig(usagePolicy: .useAndThenFetch))
        let fetcher = ScriptedFetcher<Void, User>(.hang())
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        #expect(query.state.value == User(id: 1, name: "Ada"))
        #expect(query.snapshot.isRestored)
        #expect(query.snapshot.isFetching)
        #expect(harness.events.values.contains { if case .restored("me") = $0 { true } else { false } })
        await fetcher.waitForCalls(1)
        fetcher.release(returning: User(id: 1, name: "Ada Lovelace"))
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada Lovelace")
        #expect(!query.snapshot.isRestored)
        #expect(try stored("me")?.name == "Ada Lovelace")
    }

    @Test("useInsteadOfFetching: a valid stored value is used and the fetcher is not called, until invalidated")
    func useInsteadOfFetching() async throws {
        await firstRun()
        let harness = launch(QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
        let fetcher = ScriptedFetcher<Void, User>(.answer(User(id: 1, name: "Fresh")))
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada")
        query.refetch()
        #expect(try await query.value().name == "Ada")
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 0)

        query.invalidate()
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        #expect(query.state.value?.name == "Fresh")
        #expect(try stored("me")?.name == "Fresh")
    }

    @Test("expiresAfter is measured from the save time on the client's clock, across a restart")
    func expiryAcrossRestart() async throws {
        await firstRun()
        let config = QueryCacheConfig(invalidationPolicy: .expiresAfter(3600), usagePolicy: .useInsteadOfFetching)
        let harness = launch(config)
        harness.scheduler.advance(by: .seconds(3599))
        let fetcher = ScriptedFetcher<Void, User>(.answer(User(id: 1, name: "Fresh")))
        let valid = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(valid.state.value?.name == "Ada")
        #expect(fetcher.callCount == 0)

        let later = launch(config)
        later.scheduler.advance(by: .seconds(3600))
        let expired = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: later.client,
            fetcher: fetcher.fetch)
        #expect(expired.state.isLoading)
        await later.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        #expect(expired.state.value?.name == "Fresh")
    }

    @Test("useIfFetchFails: nothing shows up front; a failed fetch falls back to the stored value, error kept")
    func useIfFetchFails() async throws {
        await firstRun()
        let harness = launch(QueryCacheConfig(usagePolicy: .useIfFetchFails))
        let fetcher = ScriptedFetcher<Void, User>(.hang(), .fail(APIError.offline))
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        #expect(query.state.isLoading)
        await fetcher.waitForCalls(1)
        fetcher.release(with: .failure(APIError.offline))
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada")
        #expect(query.snapshot.isRestored)
        #expect(query.snapshot.error as? APIError == .offline)
        // A caller that awaits the value gets the stored one instead of the error.
        let other = launch(QueryCacheConfig(usagePolicy: .useIfFetchFails))
        let value = try await other.client.fetchQuery("me", retry: .never) { () async throws -> User in
            throw APIError.offline
        }
        #expect(value.name == "Ada")
    }

    @Test("useIfFetchFails without a stored value fails as usual")
    func useIfFetchFailsWithNothingStored() async {
        let harness = launch(QueryCacheConfig(usagePolicy: .useIfFetchFails))
        let query = Query<Void, User>(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client
        ) { throw APIError.offline }
        await harness.client.waitUntilIdle()
        #expect(query.state.error as? APIError == .offline)
    }

    @Test("setQueryData on a persisted key is saved (behind the caller: flush() waits for it)")
    func setQueryDataIsSaved() async throws {
        let harness = launch(QueryCacheConfig())
        let query = Query(key: "me", options: Self.noRetry, client: harness.client) { User(id: 1, name: "Ada") }
        harness.client.setQueryData(User(id: 1, name: "Set"), for: "me")
        #expect(query.state.value?.name == "Set")
        await harness.client.flush()
        #expect(try stored("me")?.name == "Set")
    }

    @Test("a failed write is an event; the in-memory state still updates and nothing else breaks")
    func writeFailureIsAnEvent() async throws {
        let fileSystem = FaultyFileSystem()
        fileSystem.failWrites(with: ENOSPC)
        let harness = launch(QueryCacheConfig(), fileSystem: fileSystem)
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client
        ) { User(id: 1, name: "Ada") }
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada")
        let errors = persistenceErrors(harness)
        #expect(errors.count == 1)
        guard case .writeFailed = errors.first else {
            Issue.record("expected writeFailed, got \(errors)")
            return
        }
        #expect(try stored("me") == nil)
    }

    @Test(
        "a corrupt record on start-up is one event, the query fetches, and the fetch replaces the record",
        arguments: [QueryCacheConfig.UsagePolicy.useAndThenFetch, .useInsteadOfFetching])
    func corruptRecordOnStartUp(policy: QueryCacheConfig.UsagePolicy) async throws {
        await firstRun()
        let name = try #require(folder.names.first)
        try folder.write("{\"format\":\"loft-ca", to: name)
        let harness = launch(QueryCacheConfig(usagePolicy: policy))
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client
        ) { User(id: 1, name: "Fetched") }
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Fetched")
        guard case .corruptEntry(let key, _, _) = persistenceErrors(harness).first else {
            Issue.record("expected corruptEntry, got \(persistenceErrors(harness))")
            return
        }
        #expect(key == "me")
        // One unreadable record, one event: the start-up restore and the fetch do not both report it.
        #expect(persistenceErrors(harness).count == 1)
        #expect(try stored("me")?.name == "Fetched")
    }

    struct Profile: Codable, Sendable, Equatable {
        var handle: String
    }

    @Test("a value stored by an older type is reported as undecodable and the query fetches")
    func olderTypeFallsBackToFetching() async throws {
        await firstRun()
        let harness = launch(QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
        let query = Query<Void, Profile>(
            key: "me", behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client
        ) { Profile(handle: "ada") }
        await harness.client.waitUntilIdle()
        #expect(query.state.value == Profile(handle: "ada"))
        guard case .undecodableValue(_, let storedType, let expectedType, _) = persistenceErrors(harness).first else {
            Issue.record("expected undecodableValue, got \(persistenceErrors(harness))")
            return
        }
        #expect(storedType == "User" && expectedType == "Profile")
    }

    struct Opaque: Sendable {}

    @Test("a cache given to a query whose type is not Codable is reported once; the query works from memory")
    func notCodable() async {
        let harness = TestQueryClient()
        let query = Query<Void, Opaque>(
            key: "opaque", behavior: .startImmediately(()), cache: InMemoryQueryCache(), client: harness.client
        ) { Opaque() }
        await harness.client.waitUntilIdle()
        #expect(query.state.value != nil)
        #expect(persistenceErrors(harness) == [.notCodable(key: "opaque", type: "Opaque")])
    }

    @Test("setQueryData on a key no query persisted is saved with the client's cache, both forms")
    func setQueryDataPersists() async throws {
        let memory = InMemoryQueryCache()
        let harness = TestQueryClient(cache: memory, cacheConfig: QueryCacheConfig(usagePolicy: .useAndThenFetch))
        harness.client.setQueryData(User(id: 1, name: "Ada"), for: "set")
        try harness.client.setQueryData(for: "updated") { (_: User?) in User(id: 2, name: "Grace") }
        await harness.client.flush()
        #expect(try memory.get(for: "set", as: User.self)?.name == "Ada")
        #expect(try memory.get(for: "updated", as: User.self)?.name == "Grace")
        // Nothing was read back into the entries it wrote.
        #expect(!harness.events.values.contains { if case .restored = $0 { true } else { false } })
    }

    @Test("a query's own cache and config take precedence over the client's")
    func precedence() async throws {
        let clientCache = InMemoryQueryCache()
        let queryCache = InMemoryQueryCache()
        let harness = TestQueryClient(cache: clientCache)
        let plain = Query(key: "a", behavior: .startImmediately(()), client: harness.client) { 1 }
        let own = Query(key: "b", behavior: .startImmediately(()), cache: queryCache, client: harness.client) { 2 }
        await harness.client.waitUntilIdle()
        _ = (plain, own)
        #expect(try clientCache.get(for: "a", as: Int.self) == 1)
        #expect(try clientCache.get(for: "b", as: Int.self) == nil)
        #expect(try queryCache.get(for: "b", as: Int.self) == 2)
        #expect(try await harness.client.fetchQuery("c") { 3 } == 3)
        await harness.client.flush()
        #expect(try clientCache.get(for: "c", as: Int.self) == 3)
    }

    @Test("without a cache nothing is persisted, and a client's cache defaults to the global one (none here)")
    func noCacheByDefault() {
        let client = QueryClient(scheduler: TestScheduler())
        #expect(client.cache == nil)
        #expect(client.cacheConfig == QueryCacheConfig())
        #expect(QueryCacheConfig.global == QueryCacheConfig())
    }

    @Test("the global default can be set once; a second set is refused and changes nothing")
    func setOnce() {
        let store = SetOnce<Int>()
        #expect(store.value == nil)
        #expect(store.set(1))
        #expect(!store.set(2))
        #expect(store.value == 1)
    }
}
