import Foundation
import Loft
import LoftTesting
import Testing

@testable import LoftSQLite

/// A client on a SQLite cache: every usage and invalidation policy as on any provider, memory in front of it,
/// bursts of saves in one transaction, and the offline journal kept in the same database.
@Suite(.timeLimit(.minutes(1))) struct SQLiteClientTests {
    let folder = TemporaryFolder()
    static let noRetry = QueryOptions<User>(retry: .never)

    /// A client of a new process on the same database file.
    func launch(_ config: QueryCacheConfig = QueryCacheConfig()) throws -> TestQueryClient {
        TestQueryClient(cache: try SQLiteQueryCache(file: folder.database), cacheConfig: config)
    }

    /// A first run that fetched and saved Ada.
    func firstRun() async throws {
        let harness = try launch()
        let query = Query(key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client) {
            User(id: 1, name: "Ada")
        }
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada")
    }

    @Test("useAndThenFetch: the stored value shows at once after a restart, then the fetch replaces it on disk")
    func useAndThenFetch() async throws {
        try await firstRun()
        let harness = try launch(QueryCacheConfig(usagePolicy: .useAndThenFetch))
        let fetcher = ScriptedFetcher<Void, User>(.hang())
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        #expect(query.state.value?.name == "Ada" && query.snapshot.isRestored)
        await fetcher.waitForCalls(1)
        fetcher.release(returning: User(id: 1, name: "Ada Lovelace"))
        await harness.client.waitUntilIdle()
        #expect(try SQLiteQueryCache(file: folder.database).get(for: "me", as: User.self)?.name == "Ada Lovelace")
    }

    @Test("useInsteadOfFetching: a valid stored value is used and the fetcher is not called")
    func useInsteadOfFetching() async throws {
        try await firstRun()
        let harness = try launch(QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
        let fetcher = ScriptedFetcher<Void, User>(.answer(User(id: 1, name: "Fresh")))
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada")
        #expect(fetcher.callCount == 0)
    }

    @Test("useIfFetchFails: a failed fetch falls back to the stored value")
    func useIfFetchFails() async throws {
        try await firstRun()
        let harness = try launch(QueryCacheConfig(usagePolicy: .useIfFetchFails))
        let fetcher = ScriptedFetcher<Void, User>(.fail(URLError(.notConnectedToInternet)))
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Ada")
        #expect(fetcher.callCount == 1)
    }

    @Test("expiresAfter: a value older than the policy allows is not used, measured on the client's clock")
    func expiresAfter() async throws {
        try await firstRun()
        let config = QueryCacheConfig(
            invalidationPolicy: .expiresAfter(.seconds(60)), usagePolicy: .useInsteadOfFetching)
        let harness = try launch(config)
        await harness.advance(by: .seconds(61))
        let fetcher = ScriptedFetcher<Void, User>(.answer(User(id: 1, name: "Fresh")))
        let query = Query(
            key: "me", behavior: .startImmediately(()), options: Self.noRetry, client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        #expect(query.state.value?.name == "Fresh")
        #expect(fetcher.callCount == 1)
    }

    @Test("memory in front of SQLite: reads from memory, saves reach the database in bursts")
    func twoLevel() async throws {
        let sqlite = try SQLiteQueryCache(file: folder.database)
        let commits = CommitCounter()
        try await sqlite.pool.writeWithoutTransaction { db in db.add(transactionObserver: commits) }
        let cache = TwoLevelQueryCache(disk: sqlite)
        let harness = TestQueryClient(cache: cache)
        let queries = (0..<50).map { index in
            Query<Void, User>(key: ["user", index], options: Self.noRetry, client: harness.client) {
                User(id: index, name: "fetched")
            }
        }
        for index in 0..<50 { harness.client.setQueryData(User(id: index, name: "set"), for: ["user", index]) }
        await harness.client.flush()
        #expect(sqlite.rowCount == 50)
        #expect(commits.count < 50)  // the writer's bursts: at least the saves queued behind the first
        #expect(try cache.memory.get(for: ["user", 7], as: User.self)?.name == "set")
        #expect(try SQLiteQueryCache(file: folder.database).get(for: ["user", 49], as: User.self)?.name == "set")
        _ = queries
    }

    @Test("a write the database refuses is a persistenceFailed event; memory has the value, the old row stays")
    func failedWriteIsAnEvent() async throws {
        let cache = try SQLiteQueryCache(file: folder.database)
        let harness = TestQueryClient(cache: cache)
        harness.client.setQueryData(User(id: 1, name: "Ada"), for: "me")
        await harness.client.flush()
        // The database may not grow past its pages, as on a full disk.
        try await cache.pool.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        harness.client.setQueryData(User(id: 1, name: String(repeating: "A", count: 100_000)), for: "me")
        await harness.client.flush()
        let failures = harness.events.values.compactMap { event -> CacheError? in
            guard case .persistenceFailed("me", let error) = event else { return nil }
            return error as? CacheError
        }
        #expect(failures.count == 1)
        if case .writeFailed = failures.first {} else { Issue.record("expected writeFailed: \(failures)") }
        #expect(try harness.client.getQueryData("me", as: User.self)?.name.count == 100_000)
        #expect(try cache.get(for: "me", as: User.self)?.name == "Ada")
    }

    @Test("calls paused offline are rows of the same database, and resume after a restart")
    func offlineJournal() async throws {
        let addKey: QueryKey = ["todos", "add"]
        let accepted = Locked<[String]>([])
        do {
            let client = QueryClient(
                cache: try SQLiteQueryCache(file: folder.database), scheduler: TestScheduler(), isOnline: false)
            let add = Mutation<String, Int>(client: client, options: MutationOptions(mutationKey: addKey)) {
                $0.count
            }
            for request in ["milk", "eggs"] { add.execute(with: request) }
            await client.waitUntilIdle()
        }
        let cache = try SQLiteQueryCache(file: folder.database)
        #expect(try cache.keys(under: ["loft", "mutations"]).count == 2)
        let client = QueryClient(cache: cache, scheduler: TestScheduler(), isOnline: true)
        client.setMutationDefaults(
            MutationDefaults<String, Int>(options: MutationOptions()) { request, _ in
                accepted.withLock { $0.append(request) }
                return request.count
            }, for: addKey)
        #expect(client.resumePausedMutations() == 2)
        await client.waitUntilIdle()
        #expect(accepted.withLock { $0 } == ["milk", "eggs"])
        #expect(try cache.keys(under: ["loft", "mutations"]).isEmpty)
    }
}
