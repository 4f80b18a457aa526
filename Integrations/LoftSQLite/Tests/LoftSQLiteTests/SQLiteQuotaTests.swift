import Foundation
import Loft
import Testing

@testable import LoftSQLite

/// A quota is enforced in the transaction of the write that goes over it: expired rows first, then the least
/// recently used (reads count, and their order survives a restart once a write has followed them).
@Suite struct SQLiteQuotaTests {
    let folder = TemporaryFolder()
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)
    /// The value every row holds; `rowBytes` is what a row of it counts in a byte quota.
    let value = String(repeating: "v", count: 90)

    func rowBytes(_ key: QueryKey) -> Int {
        SQLiteKeyText.text(of: key).utf8.count + value.count + 2
    }

    func stored(_ cache: SQLiteQueryCache) throws -> Set<QueryKey> {
        Set(try cache.keys(under: QueryKey(parts: [])))
    }

    @Test("over a byte quota, the least recently used go first, and a read counts as a use")
    func leastRecentlyUsedGoFirst() throws {
        let quota = 3 * rowBytes("a")
        let cache = try SQLiteQueryCache(file: folder.database, quota: .bytes(quota))
        for key in ["a", "b", "c"] as [QueryKey] { try cache.save(value, for: key, savedAt: t0, expiresAt: nil) }
        #expect(try cache.get(String.self, for: "a") != nil)
        try cache.save(value, for: "d", savedAt: t0, expiresAt: nil)
        #expect(try stored(cache) == ["a", "c", "d"])
        #expect(cache.byteCount <= quota)
        try cache.save(value, for: "e", savedAt: t0, expiresAt: nil)
        #expect(try stored(cache) == ["a", "d", "e"])
    }

    @Test("expired rows go before the least recently used")
    func expiredFirst() throws {
        let cache = try SQLiteQueryCache(file: folder.database, quota: .bytes(2 * rowBytes("old")))
        try cache.save(value, for: "old", savedAt: t0, expiresAt: nil)
        try cache.save(value, for: "brf", savedAt: t0, expiresAt: t0 + .seconds(1))
        try cache.save(value, for: "new", savedAt: t0 + .seconds(2), expiresAt: nil)
        #expect(try stored(cache) == ["old", "new"])
    }

    @Test("a value larger than the whole byte quota is exceedsQuota, and nothing is evicted for it")
    func valueLargerThanQuota() throws {
        let cache = try SQLiteQueryCache(file: folder.database, quota: .bytes(2 * rowBytes("a")))
        try cache.save(value, for: "a", savedAt: t0, expiresAt: nil)
        #expect {
            try cache.save(String(repeating: "x", count: 1_000), for: "huge", savedAt: t0, expiresAt: nil)
        } throws: { error in
            guard case .exceedsQuota("huge", let bytes, let quota) = error as? CacheError else { return false }
            return bytes > quota
        }
        #expect(try stored(cache) == ["a"])
    }

    @Test("a row quota counts keys")
    func rowQuota() throws {
        let cache = try SQLiteQueryCache(file: folder.database, quota: .rows(2))
        for index in 0..<5 { try cache.save(index, for: ["n", index], savedAt: t0, expiresAt: nil) }
        #expect(try stored(cache) == [["n", 3], ["n", 4]])
        #expect(cache.rowCount == 2)
    }

    @Test("a burst larger than the quota keeps its newest writes")
    func burstOverQuota() throws {
        let cache = try SQLiteQueryCache(file: folder.database, quota: .rows(2))
        let failures = cache.save((0..<4).map { CacheWrite(key: ["n", $0], value: $0, savedAt: t0) })
        #expect(failures.isEmpty)
        #expect(try stored(cache) == [["n", 2], ["n", 3]])
    }

    @Test("the order of reads survives a restart once a write has followed them")
    func readOrderSurvivesRestart() throws {
        do {
            let cache = try SQLiteQueryCache(file: folder.database, quota: .rows(3))
            for key in ["a", "b", "c"] as [QueryKey] { try cache.save(value, for: key, savedAt: t0, expiresAt: nil) }
            _ = try cache.get(String.self, for: "a")
            try cache.save(value, for: "c", savedAt: t0, expiresAt: nil)  // writes the read's use with it
        }
        let reopened = try SQLiteQueryCache(file: folder.database, quota: .rows(3))
        try reopened.save(value, for: "d", savedAt: t0, expiresAt: nil)
        #expect(try stored(reopened) == ["a", "c", "d"])
    }

    @Test("past readLogLimit reads without a write, their order is written on GRDB's writer without a save")
    func readsAloneAreWritten() throws {
        let cache = try SQLiteQueryCache(file: folder.database)
        let limit = SQLiteQueryCache.readLogLimit
        _ = cache.save((0..<limit + 100).map { CacheWrite(key: ["n", $0], value: $0, savedAt: t0) })
        // The log holds a key once: `limit` different keys fill it.
        for index in 0..<limit { _ = try cache.get(Int.self, for: ["n", index]) }
        // GRDB's writer runs one thing at a time: a write queued after the reads' runs after their write.
        let order = try cache.pool.write { db in
            try String.fetchAll(db, sql: "SELECT key FROM loft_entries ORDER BY last_read DESC LIMIT 1")
        }
        #expect(order == [SQLiteKeyText.text(of: ["n", limit - 1])])
    }

    @Test("the totals opening reads are the rows' own, across restarts and quota evictions")
    func totalsMatchTheRows() throws {
        for round in 0..<3 {
            let cache = try SQLiteQueryCache(file: folder.database, quota: .bytes(10 * rowBytes(["k", 10])))
            for index in 0..<8 {
                try cache.save(
                    String(repeating: "x", count: 10 * index + round), for: ["k", index + 5 * round], savedAt: t0,
                    expiresAt: nil)
            }
            let counted = try cache.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT sum(length(key) + length(value)) FROM loft_entries") ?? -1
            }
            #expect(cache.byteCount == counted)
            #expect(cache.byteCount <= 10 * rowBytes(["k", 10]))
        }
    }
}
