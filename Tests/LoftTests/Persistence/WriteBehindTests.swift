import Foundation
import LoftTesting
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Saves to the persistent cache run behind the caller, on the client's writer: the caller never waits for an
/// encode or a write, the latest value of a key is the one written, a key's values reach the disk in order,
/// and the client reads what is still queued. The file system holds writes on demand (a slow disk), so each
/// rule is seen while a write is in progress.
@Suite struct WriteBehindTests {
    let folder = TemporaryDirectory()
    let fileSystem = FaultyFileSystem()

    func launch(_ config: QueryCacheConfig = QueryCacheConfig()) -> TestQueryClient {
        folder.launch(config, fileSystem: fileSystem)
    }

    /// A query that persists `key` (nothing fetched).
    func persisted(_ key: QueryKey, _ harness: TestQueryClient) -> Query<Void, User> {
        LoftTests.persisted(key, in: harness.client)
    }

    func stored(_ key: QueryKey) throws -> User? {
        try folder.stored(key)
    }

    func fileName(_ key: QueryKey) throws -> String {
        try #require(CacheFileName.direct(key))
    }

    @Test("setQueryData returns while its value is still being written; flush() returns once it is on disk")
    func saveIsBehindTheCaller() async throws {
        let harness = launch()
        let query = persisted("me", harness)
        fileSystem.holdWrites()
        // A save on the caller's thread would write here, at once (a write inside a task is never held).
        harness.client.setQueryData(User(id: 1, name: "Set"), for: "me")
        #expect(query.state.value?.name == "Set")
        await fileSystem.waitForHeldWrite()
        #expect(fileSystem.writesInTasks == 0)
        #expect(try stored("me") == nil)
        fileSystem.releaseWrites()
        await harness.client.flush()
        #expect(try stored("me")?.name == "Set")
        #expect(fileSystem.writes.count == 1 && fileSystem.writesInTasks == 0)
    }

    @Test("only the latest value of a key is written, and a key's values reach the disk in order")
    func latestWinsInOrder() async throws {
        let harness = launch()
        let queries = (persisted("a", harness), persisted("b", harness))
        fileSystem.holdWrites()
        harness.client.setQueryData(User(id: 1, name: "a1"), for: "a")
        await fileSystem.waitForHeldWrite()
        for (key, name) in [("a", "a2"), ("b", "b1"), ("a", "a3"), ("b", "b2"), ("b", "b3")] {
            harness.client.setQueryData(User(id: 1, name: name), for: QueryKey(value: key))
        }
        fileSystem.releaseWrites()
        await harness.client.flush()
        // a1 (in progress), then the latest of a and of b, in the order they were first queued.
        #expect(try fileSystem.writes == [fileName("a"), fileName("a"), fileName("b")])
        #expect(try stored("a")?.name == "a3")
        #expect(try stored("b")?.name == "b3")
        #expect(queries.0.state.value?.name == "a3" && queries.1.state.value?.name == "b3")
    }

    @Test("a query made again while its key's save is queued restores the queued value, not the disk's")
    func readsSeeQueuedValues() async throws {
        try await firstRun(saving: "On disk")
        let harness = launch(QueryCacheConfig(usagePolicy: .useAndThenFetch))
        let blocker = persisted("blocker", harness)
        do {
            let query = persisted("me", harness)
            fileSystem.holdWrites()
            harness.client.setQueryData(User(id: 0, name: "first"), for: "blocker")
            await fileSystem.waitForHeldWrite()
            harness.client.setQueryData(User(id: 1, name: "Queued"), for: "me")
            #expect(query.state.value?.name == "Queued")
        }
        harness.client.removeQueries("me")
        let fetcher = ScriptedFetcher<Void, User>(.hang())
        let again = Query(
            key: "me", behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client,
            fetcher: fetcher.fetch)
        #expect(again.state.value?.name == "Queued")
        #expect(again.snapshot.isRestored)
        #expect(try stored("me")?.name == "On disk")
        fileSystem.releaseWrites()
        await fetcher.waitForCalls(1)
        fetcher.release(returning: User(id: 1, name: "Fetched"))
        await harness.client.waitUntilIdle()  // the fetch, then the save it queued
        #expect(try stored("me")?.name == "Fetched")
        _ = blocker
    }

    /// A first run that saved `name` for "me".
    func firstRun(saving name: String) async throws {
        let harness = launch()
        let query = persisted("me", harness)
        harness.client.setQueryData(User(id: 1, name: name), for: "me")
        await harness.client.flush()
        #expect(try stored("me")?.name == name)
        _ = query
    }

    @Test("waitUntilIdle waits for the writer too")
    func waitUntilIdleWaitsForTheWriter() async throws {
        let harness = launch()
        let query = persisted("me", harness)
        fileSystem.holdWrites()
        harness.client.setQueryData(User(id: 1, name: "Set"), for: "me")
        let (client, url) = (harness.client, folder.url)
        let reader = Task {
            await client.waitUntilIdle()
            return try JSONFileQueryCache(directory: url).get(for: "me", as: User.self)
        }
        await fileSystem.waitForHeldWrite()
        fileSystem.releaseWrites()
        #expect(try await reader.value?.name == "Set")
        _ = query
    }

    @Test("a failed save is a persistenceFailed event from the writer; the saves after it are written")
    func failedSaveIsAnEvent() async throws {
        let harness = launch()
        let query = persisted("me", harness)
        fileSystem.failWrites(with: ENOSPC)
        harness.client.setQueryData(User(id: 1, name: "Lost"), for: "me")
        await harness.client.flush()
        let failures = harness.events.values.filter {
            guard case .persistenceFailed("me", let error) = $0, case .writeFailed = error as? CacheError else {
                return false
            }
            return true
        }
        #expect(failures.count == 1)
        #expect(query.state.value?.name == "Lost")
        fileSystem.failWrites(with: nil)
        harness.client.setQueryData(User(id: 1, name: "Kept"), for: "me")
        await harness.client.flush()
        #expect(try stored("me")?.name == "Kept")
    }

    @Test("flush() with nothing queued returns at once")
    func flushWhenIdle() async throws {
        let harness = launch()
        await harness.client.flush()
        #expect(fileSystem.writes.isEmpty)
    }
}
