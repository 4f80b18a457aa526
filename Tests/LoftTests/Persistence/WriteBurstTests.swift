import Foundation
import LoftTesting
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The writer hands the saves queued for one cache to it in one call (`QueryCacheType.save(_:)`), so that a
/// database writes a burst in one transaction: the keys of each call are recorded, and the file system holds
/// the first write until the rest are queued.
@Suite struct WriteBurstTests {
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)
    let folder = TemporaryDirectory()
    let fileSystem = FaultyFileSystem()

    /// A JSON-file cache that records the keys of every call it gets (one key for a single `save`).
    func recordingCache() -> RecordingQueryCache {
        RecordingQueryCache(JSONFileQueryCache(directory: folder.url, byteQuota: nil, fileSystem: fileSystem))
    }

    @Test("the saves queued while a write runs go to the cache in one call, in the order they were queued")
    func queuedSavesAreOneBurst() async throws {
        let cache = recordingCache()
        let harness = TestQueryClient(cache: cache)
        let keys: [QueryKey] = ["a", "b", "c", "d"]
        let queries = keys.map { persisted($0, in: harness.client) }
        fileSystem.holdWrites()
        harness.client.setQueryData(User(id: 1, name: "a1"), for: "a")
        await fileSystem.waitForHeldWrite()
        for key in ["b", "c", "a", "d"] as [QueryKey] {
            harness.client.setQueryData(User(id: 1, name: "\(key)2"), for: key)
        }
        fileSystem.releaseWrites()
        await harness.client.flush()
        #expect(cache.saves == [["a"], ["b", "c", "a", "d"]])
        for key in keys { #expect(try cache.wrapped.get(for: key, as: User.self)?.name == "\(key)2") }
        _ = queries
    }

    @Test("a burst holds at most burstLimit saves; the rest follow in the next")
    func burstsAreBounded() async throws {
        let cache = recordingCache()
        let harness = TestQueryClient(cache: cache)
        let count = PersistenceWriter.burstLimit + 10
        let queries = (0..<count).map { persisted(["item", $0], in: harness.client) }
        fileSystem.holdWrites()
        harness.client.setQueryData(User(id: 0, name: "first"), for: "blocker")
        await fileSystem.waitForHeldWrite()
        for index in 0..<count { harness.client.setQueryData(User(id: index, name: "v"), for: ["item", index]) }
        fileSystem.releaseWrites()
        await harness.client.flush()
        #expect(cache.saves.map(\.count) == [1, PersistenceWriter.burstLimit, 10])
        #expect(cache.saves.dropFirst().flatMap { $0 } == (0..<count).map { ["item", $0] })
        _ = queries
    }

    @Test("a burst ends where the queue turns to another cache, so each cache gets its keys in order")
    func burstsStopAtAnotherCache() async throws {
        let first = recordingCache()
        let other = RecordingQueryCache(JSONFileQueryCache(directory: folder.url.appendingPathComponent("other")))
        let harness = TestQueryClient(cache: first)
        let queries = [persisted("a", in: harness.client), persisted("b", in: harness.client)]
        let elsewhere = Query<Void, User>(
            key: "c", options: QueryOptions(retry: .never), cache: other, client: harness.client
        ) { User(id: 0, name: "fetched") }
        fileSystem.holdWrites()
        harness.client.setQueryData(User(id: 0, name: "first"), for: "blocker")
        await fileSystem.waitForHeldWrite()
        for key in ["a", "c", "b"] as [QueryKey] { harness.client.setQueryData(User(id: 1, name: "v"), for: key) }
        fileSystem.releaseWrites()
        await harness.client.flush()
        #expect(first.saves == [["blocker"], ["a"], ["b"]])
        #expect(other.saves == [["c"]])
        _ = (queries, elsewhere)
    }

    @Test("a write of a burst that fails is a persistenceFailed event of its key; the others are written")
    func failureInABurstIsItsKeys() async throws {
        let cache = recordingCache()
        let harness = TestQueryClient(cache: cache)
        let queries = ["a", "b", "c"].map { persisted(QueryKey(value: $0), in: harness.client) }
        let full = CacheError.writeFailed(path: "b", reason: String(cString: strerror(ENOSPC)))
        cache.fail("b", with: full)
        fileSystem.holdWrites()
        harness.client.setQueryData(User(id: 0, name: "first"), for: "blocker")
        await fileSystem.waitForHeldWrite()
        for key in ["a", "b", "c"] as [QueryKey] { harness.client.setQueryData(User(id: 1, name: "v"), for: key) }
        fileSystem.releaseWrites()
        await harness.client.flush()
        let failed = harness.events.values.compactMap { event -> QueryKey? in
            guard case .persistenceFailed(let key, let error) = event, error as? CacheError == full else { return nil }
            return key
        }
        #expect(failed == ["b"])
        #expect(try cache.wrapped.get(for: "a", as: User.self)?.name == "v")
        #expect(try cache.wrapped.get(for: "b", as: User.self) == nil)
        #expect(try cache.wrapped.get(for: "c", as: User.self)?.name == "v")
        _ = queries
    }

    @Test("TwoLevelQueryCache hands a burst to its disk in one call, and memory holds every value")
    func twoLevelPassesTheBurstOn() throws {
        let disk = recordingCache()
        let cache = TwoLevelQueryCache(disk: disk)
        let failures = cache.save([
            CacheWrite(key: "a", value: User(id: 1, name: "A"), savedAt: t0),
            CacheWrite(key: "b", value: User(id: 2, name: "B"), savedAt: t0),
        ])
        #expect(failures.isEmpty)
        #expect(disk.saves == [["a", "b"]])
        #expect(try cache.memory.get(for: "b", as: User.self)?.name == "B")
    }

    @Test("the default save(_:) of a provider saves each write in turn and returns the failures by key")
    func defaultBatchSavesEach() throws {
        let cache = JSONFileQueryCache(directory: folder.url, byteQuota: 1_000, fileSystem: fileSystem)
        let failures = cache.save([
            CacheWrite(key: "small", value: 1, savedAt: t0),
            CacheWrite(key: "large", value: String(repeating: "x", count: 2_000), savedAt: t0),
        ])
        #expect(failures.keys.map { $0 } == ["large"])
        if case .exceedsQuota = failures["large"] {} else { Issue.record("expected exceedsQuota, got \(failures)") }
    }
}
