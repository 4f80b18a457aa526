import Foundation
import Testing

@testable import Loft

/// A `JSONFileQueryCache` with a quota opens without reading its records: sizes and ages come from the file
/// system, and a file is read only when it is used or about to be evicted.
@Suite struct JSONFileOpeningTests {
    let folder = TemporaryDirectory()
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    private func name(of key: QueryKey) -> String {
        CacheFileName.direct(key) ?? "unnamed"
    }

    /// Sets the modification time of `key`'s file to `seconds` after the epoch.
    private func setModified(_ key: QueryKey, _ seconds: TimeInterval) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: seconds)],
            ofItemAtPath: folder.url.appendingPathComponent(name(of: key)).path)
    }

    @Test("opening with a quota reads no record, and counts the bytes on disk; a read then reads one file")
    func opensWithoutReading() throws {
        let writer = JSONFileQueryCache(directory: folder.url)
        for index in 0..<50 { try writer.save(index, for: QueryKey("n", index), savedAt: t0, expiresAt: nil) }
        let fileSystem = FaultyFileSystem()
        let cache = JSONFileQueryCache(directory: folder.url, byteQuota: 1 << 20, fileSystem: fileSystem)
        #expect(fileSystem.reads == 0)
        #expect(cache.byteCount == (try folder.recordBytes()))
        #expect(try cache.get(Int.self, for: QueryKey("n", 7))?.value == 7)
        #expect(fileSystem.reads == 1)
        #expect(cache.byteCount == (try folder.recordBytes()), "the file read is counted once")
    }

    @Test("after a restart, unused files go first, oldest modification first; a newer version's stays, uncounted")
    func unreadFilesAreEvictedOldestFirst() throws {
        let writer = JSONFileQueryCache(directory: folder.url)
        for index in 0..<3 { try writer.save(index, for: QueryKey("r", index), savedAt: t0, expiresAt: nil) }
        let record = try folder.recordBytes() / 3
        // A newer version's record, older on disk than all: eviction reads it, leaves it, and stops counting it.
        let newer = #"{"format":"loft-cache/9","key":["v"],"savedAt":0,"type":"Int","value":1}"#
        try folder.write(newer, to: name(of: ["v"]))
        try setModified(["v"], 1_000)
        try setModified(QueryKey("r", 1), 2_000)  // the oldest record
        try setModified(QueryKey("r", 0), 3_000)
        try setModified(QueryKey("r", 2), 4_000)

        let cache = JSONFileQueryCache(directory: folder.url, byteQuota: record * 3)
        #expect(cache.byteCount == record * 3 + newer.utf8.count)
        // r2 is read: it is now more recently used than the files nobody read.
        #expect(try cache.get(Int.self, for: QueryKey("r", 2))?.value == 2)
        try cache.save(3, for: QueryKey("r", 3), savedAt: t0, expiresAt: nil)

        #expect(folder.contents(of: name(of: ["v"])) == newer, "a newer version's record is never deleted")
        #expect(try cache.get(Int.self, for: QueryKey("r", 1)) == nil, "the oldest record went")
        #expect(try cache.get(Int.self, for: QueryKey("r", 0))?.value == 0)
        #expect(try cache.get(Int.self, for: QueryKey("r", 2))?.value == 2)
        #expect(cache.byteCount == record * 3)
    }

    @Test("a restart keeps enforcing the quota over the files it did not read, and over those it did")
    func quotaHoldsAcrossRestarts() throws {
        let quota = 2_000
        for round in 0..<3 {
            let cache = JSONFileQueryCache(directory: folder.url, byteQuota: quota)
            for index in 0..<40 {
                try cache.save(
                    String(repeating: "x", count: 50), for: QueryKey("q", round * 40 + index), savedAt: t0,
                    expiresAt: nil)
                #expect(cache.byteCount <= quota)
            }
            #expect(cache.byteCount == (try folder.recordBytes()), "round \(round)")
        }
    }
}
