import Foundation
import Testing

@testable import Loft

@Suite struct InMemoryQueryCacheTests {
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    @Test("a saved value reads back with its save time, as a copy")
    func roundTrip() throws {
        let cache = InMemoryQueryCache()
        try cache.save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        let read = try #require(try cache.get(User.self, for: ["user", 1]))
        #expect(read.value == User(id: 1, name: "Ada"))
        #expect(read.savedAt == t0)
        #expect(cache.isValueValid(forKey: ["user", 1], policy: .expiresAfter(.seconds(10)), now: t0 + .seconds(9)))
        #expect(!cache.isValueValid(forKey: ["user", 1], policy: .expiresAfter(.seconds(10)), now: t0 + .seconds(10)))
        #expect(cache.isValueValid(forKey: ["user", 1], policy: .notExpires, now: t0 + .seconds(1_000_000)))
        #expect(!cache.isValueValid(forKey: ["user", 2], policy: .notExpires, now: t0))
    }

    @Test("over capacity, the least recently used entry goes; a read counts as a use")
    func capacityEviction() throws {
        let cache = InMemoryQueryCache(capacity: 2)
        try cache.save(1, for: "one")
        try cache.save(2, for: "two")
        _ = try cache.get(Int.self, for: "one")
        try cache.save(3, for: "three")
        #expect(try cache.get(for: "two", as: Int.self) == nil)
        #expect(try cache.get(for: "one", as: Int.self) == 1)
        #expect(try cache.get(for: "three", as: Int.self) == 3)
        #expect(cache.count == 2)
    }

    @Test("over the byte limit, least recently used entries go until it fits; one value over it is refused")
    func byteLimit() throws {
        let cache = InMemoryQueryCache(capacity: 100, byteLimit: 12)
        try cache.save("aaaa", for: "a")  // 6 bytes of JSON
        try cache.save("bbbb", for: "b")
        try cache.save("cccc", for: "c")
        #expect(try cache.get(for: "a", as: String.self) == nil)
        #expect(cache.byteCount == 12)
        #expect(throws: CacheError.exceedsQuota(key: "d", bytes: 22, quota: 12)) {
            try cache.save(String(repeating: "d", count: 20), for: "d")
        }
        #expect(cache.count == 2)
    }

    @Test("a value read as another type is a typed error naming both types")
    func wrongType() throws {
        let cache = InMemoryQueryCache()
        try cache.save("text", for: "k")
        #expect {
            try cache.get(Int.self, for: "k")
        } throws: { error in
            guard case .undecodableValue(_, "String", "Int", _) = error as? CacheError else { return false }
            return true
        }
    }

    @Test("remove and removeAll")
    func removing() throws {
        let cache = InMemoryQueryCache()
        try cache.save(1, for: "one")
        try cache.save(2, for: "two")
        cache.remove(for: "one")
        #expect(try cache.get(for: "one", as: Int.self) == nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.byteCount == 0)
    }

    @Test("many threads saving and reading at once: capacity and byte count stay consistent")
    func stress() async throws {
        let cache = InMemoryQueryCache(capacity: 50)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        try? cache.save(round, for: QueryKey("k", (thread * 7 + round) % 80))
                        _ = try? cache.get(Int.self, for: QueryKey("k", round % 80))
                    }
                }
            }
        }
        #expect(cache.count == 50)
        var bytes = 0
        for index in 0..<80 {
            if let value = try cache.get(for: QueryKey("k", index), as: Int.self) { bytes += "\(value)".utf8.count }
        }
        #expect(cache.byteCount == bytes)
    }

    @Test("the LRU order moves used keys to the end and evicts from the front")
    func lruList() {
        var list = LRUList<Int>()
        for key in 1...4 { list.touch(key) }
        list.touch(2)
        list.remove(3)
        #expect(list.keysFromLeastRecent == [1, 4, 2])
        #expect(list.leastRecent == 1)
        list.touch(5)
        list.remove(1)
        #expect(list.keysFromLeastRecent == [4, 2, 5])
        #expect(list.count == 3)
    }
}

@Suite struct TwoLevelQueryCacheTests {
    let folder = TemporaryDirectory()

    @Test("write-through: a save lands in memory and on disk")
    func writeThrough() throws {
        let cache = TwoLevelQueryCache(disk: JSONFileQueryCache(directory: folder.url))
        try cache.save(User(id: 1, name: "Ada"), for: "me")
        #expect(try cache.memory.get(for: "me", as: User.self)?.name == "Ada")
        #expect(try JSONFileQueryCache(directory: folder.url).get(for: "me", as: User.self)?.name == "Ada")
    }

    @Test("read-through: a value only on disk is read once from disk, then served from memory")
    func readThrough() throws {
        try JSONFileQueryCache(directory: folder.url).save(User(id: 1, name: "Ada"), for: "me")
        let cache = TwoLevelQueryCache(disk: JSONFileQueryCache(directory: folder.url))
        #expect(cache.memory.count == 0)
        #expect(try cache.get(for: "me", as: User.self)?.name == "Ada")
        #expect(cache.memory.count == 1)
        try FileManager.default.removeItem(at: folder.url)
        #expect(try cache.get(for: "me", as: User.self)?.name == "Ada")
    }

    @Test("a failing disk throws, and memory still holds the new value")
    func diskFailure() throws {
        let fileSystem = FaultyFileSystem()
        let disk = JSONFileQueryCache(directory: folder.url, byteQuota: nil, fileSystem: fileSystem)
        let cache = TwoLevelQueryCache(disk: disk)
        fileSystem.failWrites(with: ENOSPC)
        #expect(throws: CacheError.self) { try cache.save(1, for: "one") }
        #expect(try cache.get(for: "one", as: Int.self) == 1)
        try? cache.removeAll()
        #expect(cache.memory.count == 0)
    }
}
