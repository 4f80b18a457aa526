import Foundation
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What others may leave in a cache's directory: special files, links, copied records, files of their own, a
/// directory that goes away. Each is a typed error or left alone; nothing hangs, nothing answers for a key
/// that is not its own.
@Suite struct HostileFileTests {
    let folder = TemporaryDirectory()
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    func cache(quota: Int? = nil, recordLimit: Int = JSONFileQueryCache.maximumRecordBytes) -> JSONFileQueryCache {
        JSONFileQueryCache(
            directory: folder.url, byteQuota: quota, fileSystem: POSIXFileSystem(), recordLimit: recordLimit)
    }

    /// The file name of `key`'s record.
    func name(of key: QueryKey) -> String {
        CacheFileName.direct(key) ?? ""
    }

    func expectReadFailed(
        _ cache: JSONFileQueryCache, _ key: QueryKey, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sourceLocation: sourceLocation) {
            try cache.get(Int.self, for: key)
        } throws: { error in
            guard case .readFailed = error as? CacheError else { return false }
            return true
        }
    }

    @Test("only the cache's own temporary files are deleted when it opens or by removeAll; others stay")
    func onlyOwnTemporaryFilesAreDeleted() throws {
        let own = name(of: "x") + ".tmp-12-3"
        for file in ["notes.tmp-keep", "backup.tmp-2024.tar", own, name(of: "x") + ".tmp-abc", "k_.tmp-1-2"] {
            try folder.write("mine", to: file)
        }
        let cache = cache()
        #expect(!folder.names.contains(own))
        #expect(folder.names.contains("notes.tmp-keep"))
        #expect(folder.names.contains("backup.tmp-2024.tar"))
        try folder.write("half", to: own)
        try cache.save(1, for: "x", savedAt: t0, expiresAt: nil)
        try cache.removeAll()
        #expect(folder.names == ["backup.tmp-2024.tar", "k_.tmp-1-2", name(of: "x") + ".tmp-abc", "notes.tmp-keep"])
    }

    @Test("a FIFO named like a record is a typed read error, and neither a read nor opening with a quota waits")
    func fifoDoesNotBlock() throws {
        try folder.write("mine", to: "notes.txt")
        #expect(mkfifo(folder.url.appendingPathComponent(name(of: "pipe")).path, 0o644) == 0)
        let cache = cache(quota: 1 << 20)
        expectReadFailed(cache, "pipe")
        // A save replaces the FIFO with a record.
        try cache.save(5, for: "pipe", savedAt: t0, expiresAt: nil)
        #expect(try cache.get(Int.self, for: "pipe")?.value == 5)
    }

    @Test("a symbolic link named like a record is never followed: to a device, out of the directory, or dangling")
    func linksAreNeverFollowed() throws {
        let outside = TemporaryDirectory()
        let elsewhere = JSONFileQueryCache(directory: outside.url)
        try elsewhere.save(41, for: "out", savedAt: t0, expiresAt: nil)
        try folder.write("mine", to: "notes.txt")
        let targets = [
            "zero": "/dev/zero", "out": outside.url.appendingPathComponent(name(of: "out")).path,
            "dangling": folder.url.appendingPathComponent("nothing-here").path,
        ]
        for (key, target) in targets {
            #expect(symlink(target, folder.url.appendingPathComponent(name(of: QueryKey(value: key))).path) == 0)
        }
        let cache = cache(quota: 1 << 20)
        for key in targets.keys { expectReadFailed(cache, QueryKey(value: key)) }
        #expect(cache.byteCount == 0)
    }

    @Test("another key's record copied over a key's file is a corrupt entry, never the other key's value")
    func copiedRecordIsCorrupt() throws {
        let cache = cache()
        try cache.save(1, for: "one", savedAt: t0, expiresAt: nil)
        try cache.save(2, for: "two", savedAt: t0, expiresAt: nil)
        try folder.write(folder.contents(of: name(of: "two")) ?? "", to: name(of: "one"))
        for reader in [cache, self.cache()] {
            #expect {
                try reader.get(Int.self, for: "one")
            } throws: { error in
                guard case .corruptEntry(let key, _, let reason) = error as? CacheError else { return false }
                return key == "one" && reason.contains("two")
            }
            #expect(try reader.get(Int.self, for: "two")?.value == 2)
        }
    }

    @Test("a record larger than the limit is neither written nor read; the old record stays")
    func recordSizeLimit() throws {
        let cache = cache(recordLimit: 512)
        try cache.save("small", for: "k", savedAt: t0, expiresAt: nil)
        #expect {
            try cache.save(String(repeating: "x", count: 1_000), for: "k", savedAt: t0, expiresAt: nil)
        } throws: { error in
            guard case .writeFailed(_, let reason) = error as? CacheError else { return false }
            return reason.contains("512")
        }
        #expect(try cache.get(String.self, for: "k")?.value == "small")
        try folder.write(String(repeating: " ", count: 600), to: name(of: "big"))
        expectReadFailed(cache, "big")
    }

    @Test("a directory removed while in use is created again by the next save, which succeeds")
    func removedDirectoryIsMadeAgain() throws {
        let cache = cache()
        try cache.save(1, for: "one", savedAt: t0, expiresAt: nil)
        try FileManager.default.removeItem(at: folder.url)
        try cache.save(2, for: "two", savedAt: t0, expiresAt: nil)
        #expect(try cache.get(Int.self, for: "two")?.value == 2)
        #expect(try cache.get(Int.self, for: "one") == nil)
        // A file in its place, then removed: the save after that succeeds too.
        try FileManager.default.removeItem(at: folder.url)
        #expect(FileManager.default.createFile(atPath: folder.path, contents: Data("x".utf8)))
        #expect(throws: CacheError.self) { try cache.save(3, for: "three", savedAt: t0, expiresAt: nil) }
        try FileManager.default.removeItem(at: folder.url)
        try cache.save(3, for: "three", savedAt: t0, expiresAt: nil)
        #expect(try cache.get(Int.self, for: "three")?.value == 3)
    }

    @Test("a record a newer version wrote is reported, never read as a value, and left as it is by saves")
    func newerFormatIsLeftAlone() throws {
        let newer = #"{"format":"loft-cache/99","key":["v"],"savedAt":0,"type":"Int","value":7}"#
        try folder.write(newer, to: name(of: ["v"]))
        let cache = cache(quota: 1 << 20)
        #expect {
            try cache.get(Int.self, for: ["v"])
        } throws: { error in
            guard case .corruptEntry(_, _, let reason) = error as? CacheError else { return false }
            return reason.contains("newer version")
        }
        #expect {
            try cache.save(8, for: ["v"], savedAt: t0, expiresAt: nil)
        } throws: { error in
            guard case .writeFailed(_, let reason) = error as? CacheError else { return false }
            return reason.contains("newer version")
        }
        #expect(folder.contents(of: name(of: ["v"])) == newer)
        #expect(cache.byteCount == 0)
        // A foreign or corrupt file in a record's place is still replaced.
        try folder.write(#"{"format":"somebody-else/3"}"#, to: name(of: ["w"]))
        try cache.save(9, for: ["w"], savedAt: t0, expiresAt: nil)
        #expect(try cache.get(Int.self, for: ["w"])?.value == 9)
    }

    @Test("a read racing a removal of its key never counts the removed record again (1,000 races)")
    func readRacingRemoval() throws {
        let cache = cache(quota: 1 << 30)
        let t0 = t0
        for round in 0..<1_000 {
            try cache.save(round, for: "raced", savedAt: t0, expiresAt: nil)
            // Two threads of their own (not a pool that could run them one after the other), started together.
            let (ready, done) = (Locked(0), DispatchGroup())
            for side in 0..<2 {
                done.enter()
                Thread {
                    ready.withLock { $0 += 1 }
                    while ready.withLock({ $0 }) < 2 {}
                    if side == 0 { _ = try? cache.get(Int.self, for: "raced") } else { try? cache.remove(for: "raced") }
                    done.leave()
                }.start()
            }
            done.wait()
            #expect(cache.byteCount == 0, "round \(round)")
            if cache.byteCount != 0 { break }
        }
        #expect(try folder.recordBytes() == 0)
    }

    @Test("the quota's bookkeeping equals the bytes on disk after saves, reads and removals race from 8 threads")
    func byteCountMatchesTheDisk() throws {
        let cache = cache(quota: 1 << 30)
        let t0 = t0
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var generator = SystemRandomNumberGenerator()
            for step in 0..<400 {
                let key = QueryKey("k", Int.random(in: 0..<6, using: &generator))
                switch Int.random(in: 0..<3, using: &generator) {
                case 0:
                    try? cache.save(
                        String(repeating: "v", count: thread * 7 + step % 13), for: key, savedAt: t0, expiresAt: nil)
                case 1: _ = try? cache.get(String.self, for: key)
                default: try? cache.remove(for: key)
                }
            }
        }
        let onDisk = try folder.recordBytes()
        #expect(cache.byteCount == onDisk)
        #expect(self.cache(quota: 1 << 30).byteCount == onDisk)
    }
}
