import Foundation
import Loft
import LoftSQLite
import Testing

/// The README's examples, compiled and run: the check in CI fails when a ```swift block of the README is not,
/// line for line, in this file.
@Suite struct ReadmeExamplesTests {
    struct Profile: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    @Test("the README's use: a client on a SQLite cache, its save flushed, memory in front of it")
    func use() async throws {
        let folder = TemporaryFolder()
        let cachesFolder = folder.url

        let file = cachesFolder.appendingPathComponent("loft.sqlite")
        let cache = try SQLiteQueryCache(file: file, quota: .bytes(50 << 20))
        let client = QueryClient(
            cache: cache,
            cacheConfig: QueryCacheConfig(invalidationPolicy: .expiresAfter(24 * 3600), usagePolicy: .useAndThenFetch)
        )
        client.setQueryData(Profile(id: 42, name: "Ada"), for: ["user", 42])
        await client.flush()  // every queued save is committed (or reported as persistenceFailed)

        #expect(try cache.get(for: ["user", 42], as: Profile.self) == Profile(id: 42, name: "Ada"))

        let twoLevel = TwoLevelQueryCache(memory: InMemoryQueryCache(capacity: 500), disk: cache)
        let fastClient = QueryClient(cache: twoLevel)

        #expect(try fastClient.cache?.get(for: ["user", 42], as: Profile.self)?.name == "Ada")
    }
}
