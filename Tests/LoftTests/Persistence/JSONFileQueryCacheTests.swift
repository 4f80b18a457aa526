import Foundation
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct JSONFileQueryCacheTests {
    let folder = TemporaryDirectory()
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    func cache(quota: Int? = nil) -> JSONFileQueryCache {
        JSONFileQueryCache(directory: folder.url, byteQuota: quota)
    }

    @Test("a saved value reads back, with its save time, from a new instance (a restart)")
    func roundTripAcrossInstances() throws {
        try cache().save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        let restarted = cache()
        let read = try #require(try restarted.get(User.self, for: ["user", 1]))
        #expect(read.value == User(id: 1, name: "Ada"))
        #expect(read.savedAt == t0)
        #expect(try restarted.get(User.self, for: ["user", 2]) == nil)
        #expect(folder.names == ["k__5b_22user_22_2c1_5d.json"])
    }

    @Test("the file is one readable JSON record: format, key, savedAt, type, value")
    func onDiskFormat() throws {
        try cache().save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        let text = try #require(folder.contents(of: "k__5b_22user_22_2c1_5d.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "loft-cache/1")
        #expect(object["key"] as? [AnyHashable] == ["user", 1])
        #expect((object["savedAt"] as? NSNumber)?.int64Value == t0.nanosecondsSinceEpoch)
        #expect(object["type"] as? String == "User")
        #expect((object["value"] as? [String: Any])?["name"] as? String == "Ada")
    }

    static let trickyKeys: [QueryKey] = [
        ["..", "..", "etc", "passwd"], "../../escape", "/absolute", "a/b", ["a", "b"], "a\u{0}b", "a",
        QueryKey(value: String(repeating: "long/", count: 2_000)),
        QueryKey(value: String(repeating: "x", count: 2_001)), "Ünïcødé 🚀 キー", "User", "user", ["1"], [1],
        [1.5], [true], QueryKey(["page": 2]), ".", "..", "", "k_", "%2F", "_2f", "con", "nul.json",
    ]

    @Test("no key escapes the directory, and every key has its own file")
    func keysNeverEscapeNorShare() throws {
        let cache = cache()
        for (index, key) in Self.trickyKeys.enumerated() {
            try cache.save(index, for: key, savedAt: t0, expiresAt: nil)
        }
        for (index, key) in Self.trickyKeys.enumerated() {
            #expect(try cache.get(Int.self, for: key)?.value == index, "\(key)")
        }
        let names = folder.names
        #expect(names.count == Self.trickyKeys.count)
        for name in names {
            #expect(!name.contains("/") && !name.hasPrefix(".") && name.utf8.count <= 255)
            var info = stat()
            #expect(stat(folder.path + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG)
        }
        // Nothing was written next to the directory.
        let parent = folder.url.deletingLastPathComponent().path
        #expect(!FileManager.default.fileExists(atPath: parent + "/escape"))
        #expect(!FileManager.default.fileExists(atPath: "/absolute"))
    }

    @Test("two long keys whose hashes collide take different files")
    func hashCollisionsProbe() throws {
        let first = QueryKey(value: String(repeating: "a", count: 500))
        let second = QueryKey(value: String(repeating: "b", count: 500))
        // Pretend `second` hashes like `first`: put second's record where first's would go.
        let cache = cache()
        try cache.save("second", for: second, savedAt: t0, expiresAt: nil)
        let secondName = CacheFileName.hashed(second, probe: 0)
        let firstName = CacheFileName.hashed(first, probe: 0)
        try FileManager.default.moveItem(
            atPath: folder.path + "/" + secondName, toPath: folder.path + "/" + firstName)

        let restarted = self.cache()
        try restarted.save("first", for: first, savedAt: t0, expiresAt: nil)
        #expect(folder.names.contains(CacheFileName.hashed(first, probe: 1)))
        #expect(try restarted.get(String.self, for: first)?.value == "first")
        let other = self.cache()
        #expect(try other.get(String.self, for: first)?.value == "first")
    }

    @Test(
        "a corrupt, truncated, empty or foreign record is a typed error and the other entries stay readable",
        arguments: [
            "{\"format\":\"loft-cache/1\",\"key\":[\"user\",1],\"sav", "", "\u{0}\u{1}garbage", "[1,2,3]",
            "{\"format\":\"somebody-else/3\",\"key\":[\"user\",1],\"savedAt\":0,\"type\":\"X\",\"value\":1}",
        ]
    )
    func corruptRecords(contents: String) throws {
        let cache = cache()
        try cache.save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        try cache.save(User(id: 2, name: "Grace"), for: ["user", 2], savedAt: t0, expiresAt: nil)
        try folder.write(contents, to: "k__5b_22user_22_2c1_5d.json")
        try folder.write("notes", to: "README.txt")

        let restarted = self.cache()
        #expect {
            try restarted.get(User.self, for: ["user", 1])
        } throws: { error in
            guard case .corruptEntry(let key, _, _) = error as? CacheError else { return false }
            return key == ["user", 1]
        }
        #expect(restarted.savedAt(forKey: ["user", 1]) == nil)
        #expect(try restarted.get(User.self, for: ["user", 2])?.value.name == "Grace")
        // The next save replaces the bad record; the foreign file is left alone.
        try restarted.save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        #expect(try restarted.get(User.self, for: ["user", 1])?.value.name == "Ada")
        #expect(folder.contents(of: "README.txt") == "notes")
    }

    struct UserV2: Codable, Equatable {
        var id: Int
        var fullName: String
    }

    @Test("a value saved by an older type is reported as undecodable, naming both types")
    func olderType() throws {
        try cache().save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        #expect {
            try cache().get(UserV2.self, for: ["user", 1])
        } throws: { error in
            guard case .undecodableValue(let key, let stored, let expected, _) = error as? CacheError else {
                return false
            }
            return key == ["user", 1] && stored == "User" && expected == "UserV2"
        }
    }

    @Test("the byte quota evicts expired records first, then the least recently used")
    func quotaEviction() throws {
        let size = try recordSize()
        let cache = cache(quota: size * 3)
        try cache.save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        try cache.save(User(id: 2, name: "Bob"), for: ["user", 2], savedAt: t0, expiresAt: t0 + .seconds(10))
        try cache.save(User(id: 3, name: "Cid"), for: ["user", 3], savedAt: t0, expiresAt: nil)
        _ = try cache.get(User.self, for: ["user", 1])

        // At t0 + 20 s, user 2 is expired: it goes first though user 3 is less recently used.
        try cache.save(User(id: 4, name: "Dan"), for: ["user", 4], savedAt: t0 + .seconds(20), expiresAt: nil)
        #expect(try cache.get(User.self, for: ["user", 2]) == nil)
        #expect(try cache.get(User.self, for: ["user", 3]) != nil)

        // Nothing is expired now: the least recently used (user 1, read before 3 and 4) goes.
        try cache.save(User(id: 5, name: "Eve"), for: ["user", 5], savedAt: t0 + .seconds(20), expiresAt: nil)
        #expect(try cache.get(User.self, for: ["user", 1]) == nil)
        #expect(cache.byteCount <= size * 3)
        #expect(folder.names.count == 3)

        // A new instance knows the total from the directory and keeps enforcing it.
        let restarted = self.cache(quota: size * 3)
        #expect(restarted.byteCount == cache.byteCount)
        try restarted.save(User(id: 6, name: "Fay"), for: ["user", 6], savedAt: t0 + .seconds(30), expiresAt: nil)
        #expect(folder.names.count == 3)
    }

    @Test("a value larger than the whole quota is refused with a typed error")
    func valueOverQuota() throws {
        let cache = cache(quota: 10)
        #expect(throws: CacheError.self) {
            try cache.save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        }
        #expect(folder.names.isEmpty)
    }

    private func recordSize() throws -> Int {
        let probe = TemporaryDirectory()
        try JSONFileQueryCache(directory: probe.url).save(
            User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: t0 + .seconds(10))
        return try #require(
            FileManager.default.attributesOfItem(
                atPath: probe.path + "/" + probe.names[0])[.size] as? Int)
    }

    @Test(
        "a full disk or a read-only volume is a typed write error and the old record stays", arguments: [ENOSPC, EROFS])
    func writeFailures(code: Int32) throws {
        let fileSystem = FaultyFileSystem()
        let cache = JSONFileQueryCache(directory: folder.url, byteQuota: nil, fileSystem: fileSystem)
        try cache.save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        fileSystem.failWrites(with: code)
        #expect {
            try cache.save(User(id: 1, name: "Ada v2"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        } throws: { error in
            guard case .writeFailed(_, let reason) = error as? CacheError else { return false }
            return reason == String(cString: strerror(code))
        }
        #expect(try cache.get(User.self, for: ["user", 1])?.value.name == "Ada")
        fileSystem.failWrites(with: nil)
        try cache.save(User(id: 1, name: "Ada v3"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        #expect(try cache.get(User.self, for: ["user", 1])?.value.name == "Ada v3")
    }

    @Test("a directory that cannot exist (under a regular file) is a typed write error, not a crash")
    func impossibleDirectory() throws {
        try folder.write("a file", to: "plain")
        let cache = JSONFileQueryCache(directory: folder.url.appendingPathComponent("plain/cache"))
        #expect(throws: CacheError.self) {
            try cache.save(1, for: "one", savedAt: t0, expiresAt: nil)
        }
        #expect(try cache.get(Int.self, for: "one") == nil)
    }

    @Test("temporary files left by a killed writer are cleaned when a cache opens; other files are kept")
    func staleTemporaryFiles() throws {
        try folder.write("half a rec", to: "k_one.json.tmp-999-1")
        try folder.write("mine", to: "notes.txt")
        _ = cache()
        #expect(folder.names == ["notes.txt"])
    }

    @Test("remove and removeAll delete records only")
    func removing() throws {
        let cache = cache()
        try cache.save(1, for: "one", savedAt: t0, expiresAt: nil)
        try cache.save(2, for: "two", savedAt: t0, expiresAt: nil)
        try folder.write("mine", to: "notes.txt")
        try cache.remove(for: "one")
        #expect(try cache.get(Int.self, for: "one") == nil)
        #expect(try cache.get(Int.self, for: "two")?.value == 2)
        try cache.removeAll()
        #expect(folder.names == ["notes.txt"])
    }

    @Test("many threads saving and reading at once lose no write")
    func concurrentSavesAndReads() async throws {
        let cache = cache(quota: 10_000_000)
        let start = t0
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for round in 0..<25 {
                        try? cache.save(round, for: QueryKey("thread", thread, round), savedAt: start, expiresAt: nil)
                        try? cache.save(round, for: QueryKey("shared", thread), savedAt: start, expiresAt: nil)
                        _ = try? cache.get(Int.self, for: QueryKey("shared", (thread + 1) % 8))
                    }
                }
            }
        }
        for thread in 0..<8 {
            for round in 0..<25 {
                #expect(try cache.get(Int.self, for: QueryKey("thread", thread, round))?.value == round)
            }
            #expect(try cache.get(Int.self, for: QueryKey("shared", thread))?.value == 24)
        }
        #expect(folder.names.count == 8 * 25 + 8)
        let total = folder.names.reduce(0) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: folder.path + "/" + name)[.size] as? Int) ?? 0)
        }
        #expect(cache.byteCount == total)
    }
}
