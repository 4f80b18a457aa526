import Foundation
import GRDB
import Loft
import LoftTesting
import Testing

@testable import LoftSQLite

/// The provider's contract, on a real database file: values by key, their save times, removal, keys by
/// prefix, and a burst of writes in one transaction.
@Suite struct SQLiteQueryCacheTests {
    let folder = TemporaryFolder()
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    func open(quota: SQLiteQueryCache.Quota? = nil) throws -> SQLiteQueryCache {
        try SQLiteQueryCache(file: folder.database, quota: quota)
    }

    @Test("a saved value reads back with its save time, from this instance and from a new one on the same file")
    func roundTrip() throws {
        let cache = try open()
        try cache.save(User(id: 1, name: "Ada"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        let read = try #require(try cache.get(User.self, for: ["user", 1]))
        #expect(read.value == User(id: 1, name: "Ada") && read.savedAt == t0)
        #expect(cache.savedAt(forKey: ["user", 1]) == t0)
        let reopened = try open()
        #expect(try reopened.get(for: ["user", 1], as: User.self) == User(id: 1, name: "Ada"))
        #expect(try reopened.get(User.self, for: ["user", 2]) == nil)
        #expect(reopened.savedAt(forKey: ["user", 2]) == nil)
    }

    @Test("a save replaces the value; remove and removeAll delete; the totals follow every change")
    func replaceAndRemove() throws {
        let cache = try open()
        try cache.save(User(id: 1, name: "Ada"), for: "a", savedAt: t0, expiresAt: nil)
        try cache.save(User(id: 1, name: "Ada Lovelace"), for: "a", savedAt: t0 + .seconds(1), expiresAt: nil)
        try cache.save(User(id: 2, name: "Grace"), for: "b", savedAt: t0, expiresAt: nil)
        #expect(try cache.get(for: "a", as: User.self)?.name == "Ada Lovelace")
        #expect(cache.rowCount == 2)
        #expect(try cache.byteCount == storedBytes(cache))
        try cache.remove(for: "a")
        try cache.remove(for: "missing")
        #expect(try cache.get(User.self, for: "a") == nil)
        #expect(cache.rowCount == 1)
        #expect(try cache.byteCount == storedBytes(cache))
        try cache.removeAll()
        #expect(cache.rowCount == 0 && cache.byteCount == 0)
        #expect(try cache.get(User.self, for: "b") == nil)
    }

    /// The sum of the rows' sizes, counted by SQL from the rows themselves.
    func storedBytes(_ cache: SQLiteQueryCache) throws -> Int {
        try cache.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT coalesce(sum(length(key) + length(value)), 0) FROM loft_entries") ?? -1
        }
    }

    @Test(
        "the durability is the writer's synchronous setting: FULL when flushed, NORMAL when process-crash safe",
        arguments: [(SQLiteQueryCache.Durability.flushed, 2), (.processCrashSafe, 1)])
    func durability(_ durability: SQLiteQueryCache.Durability, synchronous: Int) throws {
        let cache = try SQLiteQueryCache(file: folder.database, durability: durability)
        #expect(try cache.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == synchronous)
        #expect(try cache.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test("keys(under:) lists the prefix and the keys below it, and no key that merely starts with the same text")
    func keysUnderPrefix() throws {
        let cache = try open()
        let keys: [QueryKey] = [
            ["todos"], ["todos", 1], ["todos", 1, "comments"], ["todos", ["status": "open", "page": 2]],
            ["todosX"], ["todo"], ["users", 1], ["todos-archive", 1],
        ]
        for key in keys { try cache.save(1, for: key, savedAt: t0, expiresAt: nil) }
        #expect(
            Set(try cache.keys(under: ["todos"]))
                == [["todos"], ["todos", 1], ["todos", 1, "comments"], ["todos", ["status": "open", "page": 2]]])
        #expect(Set(try cache.keys(under: ["todos", 1])) == [["todos", 1], ["todos", 1, "comments"]])
        #expect(try cache.keys(under: ["nothing"]).isEmpty)
        #expect(Set(try cache.keys(under: QueryKey(parts: []))) == Set(keys))
    }

    @Test("equal keys are one row: a dictionary part in any order, -0.0 and 0")
    func equalKeysAreOneRow() throws {
        let cache = try open()
        try cache.save(1, for: ["filter", ["a": 1, "b": 2]], savedAt: t0, expiresAt: nil)
        try cache.save(2, for: ["filter", ["b": 2, "a": 1]], savedAt: t0, expiresAt: nil)
        try cache.save(3, for: ["zero", .double(-0.0)], savedAt: t0, expiresAt: nil)
        #expect(try cache.get(for: ["zero", .double(0)], as: Int.self) == 3)
        #expect(try cache.get(for: ["filter", ["a": 1, "b": 2]], as: Int.self) == 2)
        #expect(cache.rowCount == 2)
    }

    @Test("a value that no longer decodes as the type asked for is undecodableValue, naming both types")
    func undecodableValue() throws {
        let cache = try open()
        try cache.save(User(id: 1, name: "Ada"), for: "me", savedAt: t0, expiresAt: nil)
        #expect {
            try cache.get([Int].self, for: "me")
        } throws: { error in
            guard case .undecodableValue("me", let stored, let expected, _) = error as? CacheError else { return false }
            return stored == "User" && expected == "Array<Int>"
        }
    }

    @Test("save(_:) writes a burst in one transaction; a value that fails to encode fails alone")
    func burstIsOneTransaction() throws {
        let cache = try open()
        let commits = CommitCounter()
        cache.pool.writeWithoutTransaction { db in db.add(transactionObserver: commits) }
        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        let failures = cache.save([
            CacheWrite(key: "a", value: 1, savedAt: t0),
            CacheWrite(key: "bad", value: Failing(), savedAt: t0),
            CacheWrite(key: "b", value: 2, savedAt: t0),
        ])
        #expect(Array(failures.keys) == ["bad"])
        if case .encodingFailed = failures["bad"] {} else { Issue.record("expected encodingFailed: \(failures)") }
        #expect(commits.count == 1)
        #expect(try cache.get(for: "a", as: Int.self) == 1)
        #expect(try cache.get(for: "b", as: Int.self) == 2)
    }
}

/// Counts the commits of the connection it observes.
final class CommitCounter: TransactionObserver, Sendable {
    private let commits = Locked(0)
    var count: Int { commits.withLock { $0 } }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}
