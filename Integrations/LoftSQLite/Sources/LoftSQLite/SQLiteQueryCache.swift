import Foundation
import GRDB
import Loft

/// A persistent-cache provider on one SQLite database file (through GRDB), for caches too large for a file
/// per key, and the client's offline mutation journal with them.
///
/// ```swift
/// let cache = try SQLiteQueryCache(file: cachesFolder.appendingPathComponent("loft.sqlite"), quota: .bytes(50 << 20))
/// let client = QueryClient(cache: cache)
/// ```
///
/// **Behavior**
/// - One table, one row per key (see the add-on's README for the schema); WAL mode, so reads never wait for a
///   write and a process killed at any moment leaves every committed write and no torn row.
/// - Reads are point lookups by the key's index on the caller's thread (a few microseconds, never waiting for
///   the writer); the client's writer hands each burst of saves to `save(_:)`, which writes them in one
///   transaction on its own thread, so a query's thread never waits for a write.
/// - With a `quota`, a write that goes over it deletes expired rows, then the least recently used, in the same
///   transaction: the database never holds more once a write has committed. Reads count as uses: their order
///   is written with the next write (a crash loses at most that order, never a value).
/// - Opening reads two rows (the totals and the latest use), whatever the number of keys.
/// - A failure is a thrown `CacheError`, which a client reports as `persistenceFailed` and survives: another
///   connection holding the lock past `busyTimeout` is `.timedOut`; a full disk or a read-only file is
///   `.writeFailed` (the previous value stays); a damaged database is `.corruptStore`; a newer schema, or a
///   link, FIFO or directory at the path, is `.unsupportedStore` (and is left as it is).
/// - A value larger than `maximumValueBytes` is not read (`.corruptEntry`); a value that no longer decodes as
///   the type asked for is `.undecodableValue`.
/// - Thread-safe; several processes may share the file (SQLite's locks order their writes).
public final class SQLiteQueryCache: QueryCacheType {
    /// The largest value read back (64 MiB): a larger one is a `corruptEntry`, not a load.
    public static let maximumValueBytes = 64 << 20
    /// How many keys read since the last write have their use kept in memory; past it, the uses are written
    /// without waiting for a save.
    static let readLogLimit = 4_096

    /// The database file.
    public let file: URL
    /// How much the database may hold; nil when unbounded.
    public let quota: Quota?
    /// How hard a write works to survive a power cut.
    public let durability: Durability
    /// How long a read or a write waits for another connection's lock before it fails with `.timedOut`.
    public let busyTimeout: Duration
    /// Where a damaged database was moved when this cache opened with `.moveAsideAndRecreate`; nil otherwise.
    public let movedAside: URL?

    let pool: DatabasePool
    private let failure: SQLiteFailure
    /// The use sequence (the latest number given) and the reads not yet written.
    private let uses: Locked<Uses>

    private struct Uses: Sendable {
        var latest: Int64
        var reads: [String: Int64] = [:]
    }

    /// Opens (or creates) the database at `file`, applying the schema's migrations.
    ///
    /// - Parameters:
    ///   - file: the database file; its folder is created when missing.
    ///   - quota: how much it may hold (default: unbounded).
    ///   - durability: `.flushed` (the default) or `.processCrashSafe`.
    ///   - busyTimeout: how long a call waits for another connection's lock (default 5 s).
    ///   - onCorruption: what to do with a damaged file (default `.fail`).
    /// - Throws: `CacheError.corruptStore` (a damaged file, with `.fail`), `.unsupportedStore` (a newer schema;
    ///   a link, FIFO or directory at the path), `.timedOut` (locked past `busyTimeout`), `.writeFailed` (the
    ///   folder or the file cannot be created or written: read-only, no space).
    public init(
        file: URL, quota: Quota? = nil, durability: Durability = .flushed, busyTimeout: Duration = .seconds(5),
        onCorruption: CorruptionPolicy = .fail
    ) throws(CacheError) {
        let path = file.path
        let failure = SQLiteFailure(path: path, busyTimeout: busyTimeout.secondsValue)
        try SQLiteFileCheck.check(path)
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .writeFailed(path: file.deletingLastPathComponent().path, reason: "\(error.localizedDescription)")
        }
        let configuration = Self.configuration(busyTimeout: busyTimeout)
        var movedAside: URL?
        var opened: (pool: DatabasePool, latestUse: Int64)
        do {
            opened = try Self.open(path, configuration, durability)
        } catch {
            let error = failure.cacheError(error, during: .open)
            guard case .corruptStore = error, onCorruption == .moveAsideAndRecreate else { throw error }
            movedAside = try Self.moveAside(file)
            do {
                opened = try Self.open(path, configuration, durability)
            } catch {
                throw failure.cacheError(error, during: .open)
            }
        }
        self.file = file
        self.quota = quota
        self.durability = durability
        self.busyTimeout = busyTimeout
        self.movedAside = movedAside
        self.failure = failure
        pool = opened.pool
        uses = Locked(Uses(latest: opened.latestUse))
    }

    // MARK: - QueryCacheType

    /// Stores `value` for `key` in one transaction; with a quota, evicts in it to fit.
    ///
    /// - Throws: `CacheError.encodingFailed`, `.exceedsQuota` (the value alone is larger than a byte quota),
    ///   `.writeFailed`, `.timedOut`, `.corruptStore`.
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) throws(CacheError) {
        try store([try encode(value, for: key, savedAt: savedAt, expiresAt: expiresAt)])
    }

    /// Stores every value in one transaction (what the client's writer hands over for each burst of saves);
    /// with a quota, evicts in it to fit.
    ///
    /// - Returns: the errors by key: a value that does not encode or is larger than the quota alone; every
    ///   write, when the transaction fails (then none is stored).
    public func save(_ writes: [CacheWrite]) -> [QueryKey: CacheError] {
        var failures: [QueryKey: CacheError] = [:]
        var rows: [EncodedRow] = []
        rows.reserveCapacity(writes.count)
        let encoder = JSONEncoder()
        for write in writes {
            do throws(CacheError) {
                rows.append(
                    try encode(
                        write.value, for: write.key, savedAt: write.savedAt, expiresAt: write.expiresAt, with: encoder))
            } catch {
                failures[write.key] = error
            }
        }
        guard !rows.isEmpty else { return failures }
        do throws(CacheError) {
            try store(rows)
        } catch {
            for row in rows { failures[row.key] = error }
        }
        return failures
    }

    /// The stored value of `key`, read by the key's index; the read counts as a use for the quota's order.
    ///
    /// - Throws: `CacheError.undecodableValue` (it no longer decodes as `Value`), `.corruptEntry` (a row whose
    ///   columns are not this cache's, or a value over `maximumValueBytes`), `.corruptStore`, `.readFailed`,
    ///   `.timedOut`.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError)
        -> CachedValue<Value>?
    {
        let text = SQLiteKeyText.text(of: key)
        let found: StoredRow?
        do {
            found = try pool.read { db in
                try Row.fetchOne(
                    db.cachedStatement(sql: SQLiteSchema.select), arguments: [Self.maximumValueBytes, text]
                ).map(StoredRow.init)
            }
        } catch {
            throw failure.cacheError(error, during: .read)
        }
        guard let found else { return nil }
        let (data, storedType, savedAt) = try found.checked(key: key, path: file.path)
        let value = try decode(Value.self, from: data, key: key, storedType: storedType)
        noteRead(text)
        return CachedValue(value: value, savedAt: SchedulerInstant(nanosecondsSinceEpoch: savedAt))
    }

    /// When the value of `key` was saved, or nil when there is none (or it cannot be read).
    public func savedAt(forKey key: QueryKey) -> SchedulerInstant? {
        let text = SQLiteKeyText.text(of: key)
        let stored = try? pool.read { db in
            try DatabaseValue.fetchOne(db.cachedStatement(sql: SQLiteSchema.selectSavedAt), arguments: [text])
        }
        guard case .int64(let nanoseconds) = stored?.storage else { return nil }
        return SchedulerInstant(nanosecondsSinceEpoch: nanoseconds)
    }

    /// Removes the value of `key`, if any.
    ///
    /// - Throws: `CacheError.writeFailed`, `.timedOut`, `.corruptStore`.
    public func remove(for key: QueryKey) throws(CacheError) {
        let text = SQLiteKeyText.text(of: key)
        _ = uses.withLock { $0.reads.removeValue(forKey: text) }
        try write { db in try db.cachedStatement(sql: SQLiteSchema.delete).execute(arguments: [text]) }
    }

    /// Removes every value.
    ///
    /// - Throws: `CacheError.writeFailed`, `.timedOut`, `.corruptStore`.
    public func removeAll() throws(CacheError) {
        uses.withLock { $0.reads = [:] }
        try write { db in try db.execute(sql: "DELETE FROM \(SQLiteSchema.entries)") }
    }

    /// The keys stored under `prefix` (the prefix itself included), one range of the key index; a row whose key
    /// text is not a key's is left out.
    ///
    /// - Throws: `CacheError.readFailed`, `.timedOut`, `.corruptStore`.
    public func keys(under prefix: QueryKey) throws(CacheError) -> [QueryKey] {
        let texts: [String]
        do {
            texts = try pool.read { db in
                guard let range = SQLiteKeyText.range(under: prefix) else {
                    return try String.fetchAll(db.cachedStatement(sql: SQLiteSchema.allKeys))
                }
                return try String.fetchAll(
                    db.cachedStatement(sql: SQLiteSchema.keysUnder), arguments: [range.exact, range.start, range.end])
            }
        } catch {
            throw failure.cacheError(error, during: .read)
        }
        return texts.compactMap(SQLiteKeyText.key(from:))
    }

    // MARK: - Totals

    /// The bytes of keys and values stored (what a byte quota counts).
    public var byteCount: Int {
        Int((try? totals().bytes) ?? 0)
    }

    /// The number of keys stored.
    public var rowCount: Int {
        Int((try? totals().rows) ?? 0)
    }

    private func totals() throws -> (bytes: Int64, rows: Int64) {
        try pool.read { db in try Self.usage(db) }
    }

    // MARK: - Writing

    /// A value encoded for its row.
    struct EncodedRow {
        let key: QueryKey
        let text: String
        let data: Data
        let type: String
        let savedAt: Int64
        let expiresAt: Int64?
        var size: Int64 { Int64(data.count + text.utf8.count) }
    }

    private func encode<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?,
        with encoder: JSONEncoder = JSONEncoder()
    ) throws(CacheError) -> EncodedRow {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw .encodingFailed(key: key, type: "\(Value.self)", reason: "\(error)")
        }
        let row = EncodedRow(
            key: key, text: SQLiteKeyText.text(of: key), data: data, type: "\(Value.self)",
            savedAt: savedAt.nanosecondsSinceEpoch, expiresAt: expiresAt?.nanosecondsSinceEpoch)
        if case .bytes(let limit) = quota, row.size > limit {
            throw .exceedsQuota(key: key, bytes: Int(row.size), quota: limit)
        }
        return row
    }

    /// Writes `rows` in one transaction, with the uses of the reads since the last write, and evicts to fit.
    private func store(_ rows: [EncodedRow]) throws(CacheError) {
        try write { db in
            let (reads, first) = uses.withLock { uses in
                defer {
                    uses.reads = [:]
                    uses.latest += Int64(rows.count)
                }
                return (uses.reads, uses.latest + 1)
            }
            do {
                try Self.writeUses(reads, db)
                let upsert = try db.cachedStatement(sql: SQLiteSchema.upsert)
                for (offset, row) in rows.enumerated() {
                    try upsert.execute(arguments: [
                        row.text, row.data, row.type, row.savedAt, row.expiresAt, first + Int64(offset), row.size,
                    ])
                }
                try evict(db, writtenFrom: first, newest: first + Int64(rows.count) - 1, now: rows.map(\.savedAt).max())
            } catch {
                // The transaction rolls back: the reads' uses are kept for the next write.
                uses.withLock { $0.reads.merge(reads) { Swift.max($0, $1) } }
                throw error
            }
        }
    }

    /// Runs `body` in an immediate transaction (it takes the write lock at once, so it never fails half-way
    /// for a lock), committed when it returns.
    private func write(_ body: (Database) throws -> Void) throws(CacheError) {
        do {
            try pool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try body(db)
                    return .commit
                }
            }
        } catch {
            throw failure.cacheError(error, during: .write)
        }
    }

    /// Deletes, within the write's transaction, expired rows (not written by it), then the least recently used
    /// (never the newest write), until the totals fit the quota.
    private func evict(_ db: Database, writtenFrom first: Int64, newest: Int64, now: Int64?) throws {
        guard let quota else { return }
        let totals = try Self.usage(db)
        var excess = quota.excess(bytes: totals.bytes, rows: totals.rows)
        guard excess > 0 else { return }
        var victims: [Int64] = []
        var chosen = Set<Int64>()
        if let now {
            let expired = try Row.fetchCursor(db.cachedStatement(sql: SQLiteSchema.expired), arguments: [now, first])
            while excess > 0, let row = try expired.next() {
                let (id, size) = (Self.integer(row, 0), Self.integer(row, 1))
                victims.append(id)
                chosen.insert(id)
                excess -= quota.weight(ofRowOf: size)
            }
        }
        if excess > 0 {
            let leastRecent = try Row.fetchCursor(db.cachedStatement(sql: SQLiteSchema.leastRecentlyUsed))
            while excess > 0, let row = try leastRecent.next() {
                let (id, size, lastRead) = (Self.integer(row, 0), Self.integer(row, 1), Self.integer(row, 2))
                guard lastRead < newest else { break }
                guard chosen.insert(id).inserted else { continue }
                victims.append(id)
                excess -= quota.weight(ofRowOf: size)
            }
        }
        let delete = try db.cachedStatement(sql: SQLiteSchema.deleteID)
        for id in victims { try delete.execute(arguments: [id]) }
    }

    /// Column `index` of `row` as an integer; 0 when a damaged row holds something else (never a trap).
    private static func integer(_ row: Row, _ index: Int) -> Int64 {
        Int64.fromDatabaseValue(row[index] as DatabaseValue) ?? 0
    }

    // MARK: - Reads' uses

    /// Records a read as the latest use of its key; once `readLogLimit` keys are kept, writes their uses
    /// without waiting for a save (on GRDB's writer, never the reader's thread).
    private func noteRead(_ text: String) {
        let isFull = uses.withLock { uses in
            uses.latest += 1
            uses.reads[text] = uses.latest
            return uses.reads.count >= Self.readLogLimit
        }
        guard isFull else { return }
        pool.asyncWriteWithoutTransaction { [uses] db in
            let reads = uses.withLock { uses in
                defer { uses.reads = [:] }
                return uses.reads
            }
            do {
                try db.inTransaction(.immediate) {
                    try Self.writeUses(reads, db)
                    return .commit
                }
            } catch {
                uses.withLock { $0.reads.merge(reads) { Swift.max($0, $1) } }
            }
        }
    }

    private static func writeUses(_ reads: [String: Int64], _ db: Database) throws {
        guard !reads.isEmpty else { return }
        let touch = try db.cachedStatement(sql: SQLiteSchema.touch)
        for (text, use) in reads { try touch.execute(arguments: [use, text, use]) }
    }
}
