import Foundation
import GRDB
import Loft
import LoftSQLite

// The add-on's benchmarks (release build): 100,000 small Codable values (`--quick`: 10,000, to prove the
// scenarios run), each row beside a baseline measured in the same run on the same machine.
//
// - Open with a quota: `SQLiteQueryCache(file:quota:)` of the full database, against a bare GRDB
//   `DatabasePool` opened on the same file. Target: 50 ms.
// - First read after open: the first `get` of a new cache, against the first `SELECT` of a new pool.
// - A save, per value: 100,000 `setQueryData` calls of a client on the cache, until `flush()` returns (the
//   client's writer hands each burst to one transaction), against a bare GRDB `INSERT OR REPLACE` of the
//   same rows (the key's text, the value's JSON encoded the same way, its type, times and size) into a table
//   of the same columns and indexes, all in one transaction: what the client, its writer and the cache's
//   bookkeeping (bursts, uses, totals) add to writing the bytes. Both commit without flushing
//   (`.processCrashSafe`, `synchronous = NORMAL`). Target: 2×.
// - A read: `get` of a present key (the row's JSON decoded into the type asked for), against a bare GRDB
//   `SELECT` of the same row's value, decoded the same way. Target: 2×.
// - Bytes on disk per record: the database file (its log checkpointed) divided by the number of records,
//   against the bytes of the same value's `JSONFileQueryCache` record. Target: 2×.
// - Eviction of 10 % by the quota: after reads of the other 90 %, one save under a row quota of 90 %
//   deletes the 10 % least recently used in its transaction: its time, against a bare `DELETE` of as many
//   rows by id in one transaction, and whether exactly those keys went.

struct Small: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var email: String
    var score: Double
}

let quick = CommandLine.arguments.contains("--quick")
let count = quick ? 10_000 : 100_000
let reads = quick ? 2_000 : 20_000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loft-sqlite-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

func value(_ index: Int) -> Small {
    Small(id: index, name: "user \(index)", email: "user\(index)@example.com", score: Double(index) / 7)
}
func key(_ index: Int) -> QueryKey { ["user", index] }
let now = SchedulerInstant(secondsSinceEpoch: Int64(Date().timeIntervalSince1970))

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}
func time(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return nanoseconds(ContinuousClock.now - start)
}
func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return nanoseconds(ContinuousClock.now - start)
}

// MARK: - Saves

let loftFile = folder.appendingPathComponent("loft.sqlite")
let bareFile = folder.appendingPathComponent("bare.sqlite")
let saveTime: Double
do {
    let cache = try SQLiteQueryCache(file: loftFile, durability: .processCrashSafe)
    let client = QueryClient(cache: cache)
    saveTime = await time {
        for index in 0..<count { client.setQueryData(value(index), for: key(index)) }
        await client.flush()
    }
    guard cache.rowCount == count else { fatalError("every save is stored: \(cache.rowCount) of \(count)") }
}
var bareConfiguration = Configuration()
bareConfiguration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
let bare = try DatabasePool(path: bareFile.path, configuration: bareConfiguration)
try bare.write { db in
    try db.execute(
        sql: """
            CREATE TABLE t (
                key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, type TEXT NOT NULL, saved_at INTEGER NOT NULL,
                expires_at INTEGER, last_read INTEGER NOT NULL, byte_size INTEGER NOT NULL
            );
            CREATE INDEX t_expiry ON t(expires_at) WHERE expires_at IS NOT NULL;
            CREATE INDEX t_last_read ON t(last_read);
            """)
}
let keyTexts = (0..<count).map { String(decoding: try! JSONEncoder().encode(key($0)), as: UTF8.self) }
let bareSaveTime = try time {
    try bare.write { db in
        let insert = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO t (key, value, type, saved_at, expires_at, last_read, byte_size)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        for index in 0..<count {
            let data = try JSONEncoder().encode(value(index))
            try insert.execute(arguments: [
                keyTexts[index], data, "Small", now.nanosecondsSinceEpoch, nil, index,
                data.count + keyTexts[index].utf8.count,
            ])
        }
    }
}

// MARK: - Opening and the first read

let quota = SQLiteQueryCache.Quota.bytes(1 << 30)
var openTime = Double.infinity
var firstReadTime = Double.infinity
var bareOpenTime = Double.infinity
var bareFirstReadTime = Double.infinity
for _ in 0..<5 {
    var opened: SQLiteQueryCache?
    openTime = min(openTime, try time { opened = try SQLiteQueryCache(file: loftFile, quota: quota) })
    guard let cache = opened else { fatalError("opened") }
    firstReadTime = min(
        firstReadTime,
        try time {
            guard try cache.get(Small.self, for: key(count / 2))?.value == value(count / 2) else { fatalError("read") }
        })
    var pool: DatabasePool?
    bareOpenTime = min(bareOpenTime, try time { pool = try DatabasePool(path: bareFile.path) })
    guard let pool else { fatalError("opened") }
    bareFirstReadTime = min(
        bareFirstReadTime,
        try time {
            let data = try pool.read { db in
                try Data.fetchOne(db, sql: "SELECT value FROM t WHERE key = ?", arguments: [keyTexts[count / 2]])
            }
            guard let data, try JSONDecoder().decode(Small.self, from: data) == value(count / 2) else { fatalError() }
        })
}

// MARK: - Reads

let cache = try SQLiteQueryCache(file: loftFile)
var readTime = Double.infinity
var bareReadTime = Double.infinity
for round in 0..<5 {
    let indices = (0..<reads).map { ($0 * 7_919 + round) % count }
    readTime = min(
        readTime,
        try time {
            for index in indices {
                guard try cache.get(Small.self, for: key(index))?.value.id == index else { fatalError("read") }
            }
        } / Double(reads))
    bareReadTime = min(
        bareReadTime,
        try time {
            for index in indices {
                let small = try bare.read { db -> Small? in
                    let statement = try db.cachedStatement(sql: "SELECT value FROM t WHERE key = ?")
                    return try Data.fetchOne(statement, arguments: [keyTexts[index]]).map {
                        try JSONDecoder().decode(Small.self, from: $0)
                    }
                }
                guard small?.id == index else { fatalError("read") }
            }
        } / Double(reads))
}

// MARK: - Bytes on disk

try DatabaseQueue(path: loftFile.path).writeWithoutTransaction { db in
    try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
}
func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
}
let databaseBytes = ["", "-wal"].map { fileSize(URL(fileURLWithPath: loftFile.path + $0)) }.reduce(0, +)
let perRecord = Double(databaseBytes) / Double(count)
let jsonFolder = folder.appendingPathComponent("json")
let jsonCache = JSONFileQueryCache(directory: jsonFolder)
try jsonCache.save(value(count / 2), for: key(count / 2), savedAt: now, expiresAt: nil)
let jsonRecordBytes = Double(jsonCache.byteCount)

// MARK: - Eviction

let evicted = count / 10
for index in evicted..<count { _ = try cache.get(Small.self, for: key(index)) }
let evicting = try SQLiteQueryCache(file: loftFile, quota: .rows(count - evicted))
_ = cache  // the reads' order is written by the next write: the one that evicts
let evictionTime = try time {
    try cache.save(value(count), for: key(count), savedAt: now, expiresAt: nil)
    try evicting.save(value(count + 1), for: key(count + 1), savedAt: now, expiresAt: nil)
}
let remaining = Set(try evicting.keys(under: ["user"]))
let expectedGone = Set((0..<evicted + 1).map(key))
let leastRecentWent = remaining.isDisjoint(with: expectedGone) && remaining.count == count - evicted
let bareEvictionTime = try time {
    try bare.write { db in
        let delete = try db.cachedStatement(sql: "DELETE FROM t WHERE rowid = ?")
        for rowid in 1...(evicted + 1) { try delete.execute(arguments: [rowid]) }
    }
}

// MARK: - The table

func milliseconds(_ value: Double) -> String { String(format: "%.1f ms", value / 1e6) }
func microseconds(_ value: Double) -> String { String(format: "%.2f µs", value / 1e3) }
func row(_ scenario: String, _ figure: String, _ baseline: String, _ ratio: Double?, _ target: String, _ ok: Bool) {
    let ratioText = ratio.map { String(format: "%.2f×", $0) } ?? ""
    print("| \(scenario) | \(figure) | \(baseline) | \(ratioText) | \(target) | \(ok ? "ok" : "MISSED") |")
}
print("\(count) small Codable values (\(Int(jsonRecordBytes)) bytes as a JSON-file record)")
print("| scenario | figure | baseline | ratio | target | |")
print("|---|---|---|---|---|---|")
row(
    "open with a quota", milliseconds(openTime), milliseconds(bareOpenTime) + " a bare GRDB pool", nil, "≤ 50 ms",
    openTime <= 50e6)
row(
    "first read after open", microseconds(firstReadTime), microseconds(bareFirstReadTime) + " a bare first SELECT",
    firstReadTime / bareFirstReadTime, "", true)
let perSave = saveTime / Double(count)
let barePerSave = bareSaveTime / Double(count)
row(
    "a save, per value (setQueryData, batched by the writer)", microseconds(perSave),
    microseconds(barePerSave) + " a bare INSERT OR REPLACE, one transaction", perSave / barePerSave, "≤ 2×",
    perSave <= 2 * barePerSave)
row(
    "a read", microseconds(readTime), microseconds(bareReadTime) + " a bare SELECT", readTime / bareReadTime, "≤ 2×",
    readTime <= 2 * bareReadTime)
row(
    "bytes on disk per record", String(format: "%.0f B", perRecord),
    String(format: "%.0f B", jsonRecordBytes) + " the JSON-file record", perRecord / jsonRecordBytes, "≤ 2×",
    perRecord <= 2 * jsonRecordBytes)
row(
    "eviction of 10 % by the quota (\(evicted + 1) rows, in one save)", milliseconds(evictionTime),
    milliseconds(bareEvictionTime) + " a bare DELETE of as many rows", evictionTime / bareEvictionTime,
    "the least recently used go", leastRecentWent)
