import Foundation
import GRDB
import Loft
import Testing

@testable import LoftSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Broken and hostile database files: each is a typed `CacheError` at once (never a crash or a wait), nothing
/// else is lost, and a damaged file is moved aside only when asked.
@Suite(.timeLimit(.minutes(1))) struct HostileDatabaseTests {
    let folder = TemporaryFolder()
    let t0 = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    /// A database with a few values, closed; with `checkpointed`, its log copied into the file and emptied (the
    /// file alone holds them).
    func populated(rows: Int = 200, checkpointed: Bool = true) throws {
        let cache = try SQLiteQueryCache(file: folder.database)
        let failures = cache.save(
            (0..<rows).map { CacheWrite(key: ["user", $0], value: User(id: $0, name: "user \($0)"), savedAt: t0) })
        #expect(failures.isEmpty)
        if checkpointed {
            try cache.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        try cache.pool.close()
    }

    func expectError(_ matches: (CacheError) -> Bool, _ open: () throws -> SQLiteQueryCache) {
        do {
            _ = try open()
            Issue.record("opening succeeded")
        } catch let error as CacheError {
            #expect(matches(error), "\(error)")
        } catch {
            Issue.record("not a CacheError: \(error)")
        }
    }

    func isCorrupt(_ error: CacheError) -> Bool {
        if case .corruptStore = error { true } else { false }
    }

    @Test("a file of garbage is corruptStore and is left as it was")
    func garbage() throws {
        let garbage = Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: folder.database)
        expectError(isCorrupt) { try SQLiteQueryCache(file: folder.database) }
        #expect(try Data(contentsOf: folder.database) == garbage)
    }

    @Test("moveAsideAndRecreate moves a damaged file aside, byte for byte, and opens an empty database")
    func moveAside() throws {
        let garbage = Data(repeating: 0xAB, count: 4_096)
        try garbage.write(to: folder.database)
        let cache = try SQLiteQueryCache(file: folder.database, onCorruption: .moveAsideAndRecreate)
        let aside = try #require(cache.movedAside)
        #expect(try Data(contentsOf: aside) == garbage)
        #expect(cache.rowCount == 0)
        try cache.save(1, for: "works", savedAt: t0, expiresAt: nil)
        #expect(try cache.get(for: "works", as: Int.self) == 1)
        #expect(try SQLiteQueryCache(file: folder.database).movedAside == nil)
    }

    @Test("a truncated database is a typed error when opened or read, never a crash; it can be recreated")
    func truncated() throws {
        try populated(rows: 2_000)
        let whole = try Data(contentsOf: folder.database)
        try whole.prefix(whole.count / 3).write(to: folder.database)
        switch Result(catching: { () throws(CacheError) in try SQLiteQueryCache(file: folder.database) }) {
        case .success(let cache):
            // Opening read the first pages only: the damage shows when a read reaches it.
            let errors = (0..<2_000).compactMap { index -> CacheError? in
                do throws(CacheError) {
                    _ = try cache.get(User.self, for: ["user", index])
                    return nil
                } catch {
                    return error
                }
            }
            #expect(!errors.isEmpty)
            #expect(errors.allSatisfy(isCorrupt), "\(errors.prefix(3))")
        case .failure(let error):
            #expect(isCorrupt(error), "\(error)")
            let cache = try SQLiteQueryCache(file: folder.database, onCorruption: .moveAsideAndRecreate)
            #expect(cache.movedAside != nil && cache.rowCount == 0)
        }
    }

    @Test("a database of a newer schema is unsupportedStore and is not touched")
    func newerSchema() throws {
        try populated()
        let queue = try DatabaseQueue(path: folder.database.path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: future')") }
        try queue.close()
        let before = try Data(contentsOf: folder.database)
        expectError({ if case .unsupportedStore = $0 { true } else { false } }) {
            try SQLiteQueryCache(file: folder.database)
        }
        #expect(try Data(contentsOf: folder.database) == before)
    }

    enum SpecialFile: String, CaseIterable, Sendable {
        case symbolicLink, danglingLink, fifo, directory
    }

    @Test(
        "a link, a FIFO or a directory at the path is unsupportedStore at once, and left in place",
        arguments: SpecialFile.allCases)
    func specialFile(_ kind: SpecialFile) throws {
        let path = folder.database.path
        switch kind {
        case .symbolicLink:
            try populated()
            let target = folder.url.appendingPathComponent("real.sqlite").path
            #expect(rename(path, target) == 0 && symlink(target, path) == 0)
        case .danglingLink: #expect(symlink("/nonexistent/cache.sqlite", path) == 0)
        case .fifo: #expect(mkfifo(path, 0o644) == 0)
        case .directory: #expect(mkdir(path, 0o755) == 0)
        }
        expectError({ if case .unsupportedStore = $0 { true } else { false } }) {
            try SQLiteQueryCache(file: folder.database)
        }
        var status = stat()
        #expect(lstat(path, &status) == 0)
    }

    @Test("a full disk is writeFailed; the previous value stays and reads go on")
    func fullDisk() throws {
        let cache = try SQLiteQueryCache(file: folder.database)
        try cache.save("small", for: "kept", savedAt: t0, expiresAt: nil)
        // The database may not grow past its current pages, as on a full disk (SQLite's own SQLITE_FULL).
        try cache.pool.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        #expect {
            try cache.save(String(repeating: "x", count: 200_000), for: "kept", savedAt: t0, expiresAt: nil)
        } throws: { error in
            guard case .writeFailed(_, let reason) = error as? CacheError else { return false }
            return reason.contains("full")
        }
        #expect(try cache.get(for: "kept", as: String.self) == "small")
    }

    @Test("a value larger than maximumValueBytes is corruptEntry and is not loaded")
    func oversizedValue() throws {
        let cache = try SQLiteQueryCache(file: folder.database)
        try cache.save("small", for: "huge", savedAt: t0, expiresAt: nil)
        try cache.pool.write { db in
            try db.execute(
                sql: "UPDATE loft_entries SET value = zeroblob(?) WHERE key = ?",
                arguments: [SQLiteQueryCache.maximumValueBytes + 1, SQLiteKeyText.text(of: "huge")])
        }
        #expect {
            try cache.get(String.self, for: "huge")
        } throws: { error in
            guard case .corruptEntry("huge", _, let reason) = error as? CacheError else { return false }
            return reason.contains("bytes")
        }
    }

    @Test("a row whose columns another program changed is corruptEntry; the other rows read")
    func hostileRow() throws {
        try populated(rows: 3)
        let queue = try DatabaseQueue(path: folder.database.path)
        try queue.write { db in
            try db.execute(
                sql: "UPDATE loft_entries SET value = 'text, not a blob', saved_at = 'soon' WHERE key = ?",
                arguments: [SQLiteKeyText.text(of: ["user", 1])])
        }
        try queue.close()
        let cache = try SQLiteQueryCache(file: folder.database)
        #expect {
            try cache.get(User.self, for: ["user", 1])
        } throws: { error in
            if case .corruptEntry(["user", 1], _, _) = error as? CacheError { true } else { false }
        }
        #expect(cache.savedAt(forKey: ["user", 1]) == nil)
        #expect(try cache.get(for: ["user", 2], as: User.self)?.name == "user 2")
    }

    @Test("another process holding the write lock past the busy timeout: a save is timedOut, reads go on")
    func lockedByAnotherProcess() async throws {
        // Opening needs the lock when the log is empty (GRDB writes one then): the log here is not.
        try populated(rows: 3, checkpointed: false)
        let holder = try ProbeProcess(["hold-lock", folder.database.path])
        #expect(await holder.line { $0 == "locked" } == "locked")
        let cache = try SQLiteQueryCache(file: folder.database, busyTimeout: .milliseconds(200))
        #expect(try cache.get(for: ["user", 1], as: User.self)?.name == "user 1")
        #expect {
            try cache.save(User(id: 1, name: "blocked"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        } throws: { error in
            guard case .timedOut(_, let operation, let seconds) = error as? CacheError else { return false }
            return operation == "a write" && seconds == 0.2
        }
        #expect(holder.finish() == 0)
        try cache.save(User(id: 1, name: "after"), for: ["user", 1], savedAt: t0, expiresAt: nil)
        #expect(try cache.get(for: ["user", 1], as: User.self)?.name == "after")
    }

    @Test("a database the process may read but not write: opening or saving is a typed error, never a crash")
    func readOnlyFile() async throws {
        try populated(rows: 1)
        let cache = try SQLiteQueryCache(file: folder.database)
        try cache.save(1, for: "kept", savedAt: t0, expiresAt: nil)
        try cache.pool.close()
        // Readable by all, writable by its owner only; the probe opens it as another user.
        #expect(chmod(folder.url.path, 0o755) == 0 && chmod(folder.database.path, 0o644) == 0)
        let probe = try ProbeProcess(["open-as-other", folder.database.path])
        _ = await probe.line { $0.hasPrefix("save:") || $0.hasPrefix("open: Th") || $0.hasPrefix("open: C") }
        #expect(probe.finish() == 0)
        let lines = probe.lines
        if lines.first == "open: ok" {
            #expect(lines.contains { $0.hasPrefix("save: ") && $0 != "save: ok" }, "\(lines)")
        } else {
            #expect(lines.first?.hasPrefix("open: ") == true, "\(lines)")
        }
        #expect(try SQLiteQueryCache(file: folder.database).get(for: "kept", as: Int.self) == 1)
    }
}
