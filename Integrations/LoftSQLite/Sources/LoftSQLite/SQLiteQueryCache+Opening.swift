import Foundation
import GRDB
import Loft

/// Opening the database: its configuration, the pool with its schema checked and migrated, the usage row, and
/// a damaged file moved aside.
extension SQLiteQueryCache {

    static func configuration(busyTimeout: Duration) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout.secondsValue)
        return configuration
    }

    /// Opens the pool, checks the schema is not newer than this version's and migrates it, and reads the
    /// latest use; the pool is closed again when any of it fails.
    static func open(_ path: String, _ configuration: Configuration, _ durability: Durability) throws -> (
        DatabasePool, Int64
    ) {
        let pool = try DatabasePool(path: path, configuration: configuration)
        do {
            // Only the writer commits, and GRDB sets its WAL mode (with `synchronous = NORMAL`) after a
            // configuration's own preparation: the durability is set on it here, once it is open.
            let synchronous = durability == .flushed ? "FULL" : "NORMAL"
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
            let migrator = SQLiteSchema.migrator
            let (isNewer, isCurrent) = try pool.read { db in
                (try migrator.hasBeenSuperseded(db), try migrator.hasCompletedMigrations(db))
            }
            if isNewer {
                throw CacheError.unsupportedStore(
                    path: path, reason: "its schema is newer than this version knows: a newer version wrote it")
            }
            // A current schema is only read: opening never waits for another connection's write.
            if !isCurrent { try migrator.migrate(pool) }
            let latestUse = try pool.read { db in
                _ = try usage(db)
                return try Int64.fetchOne(db, sql: SQLiteSchema.lastUse) ?? 0
            }
            return (pool, latestUse)
        } catch {
            try? pool.close()
            throw error
        }
    }

    static func usage(_ db: Database) throws -> (bytes: Int64, rows: Int64) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: SQLiteSchema.usage)),
            let bytes = Int64.fromDatabaseValue(row[0]), let rows = Int64.fromDatabaseValue(row[1])
        else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the usage row is missing or not numbers")
        }
        return (bytes, rows)
    }

    /// Moves a damaged database and its companions aside; returns where the database went.
    static func moveAside(_ file: URL) throws(CacheError) -> URL {
        let stamp = Int64(Date().timeIntervalSince1970 * 1000)
        let aside = URL(fileURLWithPath: file.path + ".corrupt-\(stamp)")
        for suffix in ["", "-wal", "-shm"] {
            let from = file.path + suffix
            guard FileManager.default.fileExists(atPath: from) else { continue }
            do {
                try FileManager.default.moveItem(atPath: from, toPath: aside.path + suffix)
            } catch {
                throw .writeFailed(path: from, reason: "it could not be moved aside: \(error.localizedDescription)")
            }
        }
        return aside
    }
}
