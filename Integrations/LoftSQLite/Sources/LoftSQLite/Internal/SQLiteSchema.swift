import GRDB

/// The database's schema, versioned by GRDB's migrator: each version a migration, applied once, in order, in
/// a transaction. A database that lists a migration this version does not know was written by a newer version.
enum SQLiteSchema {
    /// The table of values.
    static let entries = "loft_entries"

    /// Every migration, oldest first.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: entries, usage") { db in
            // One row per key. `key` is the key's canonical JSON; `value` the value's JSON; `type` the Swift type
            // it was saved as; times are nanoseconds on the saver's clock; `last_read` a use sequence number
            // (larger is more recent; reads and saves both count); `byte_size` what the row counts in a byte
            // quota (the key's and the value's bytes).
            try db.execute(
                sql: """
                    CREATE TABLE loft_entries (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        value BLOB NOT NULL,
                        type TEXT NOT NULL,
                        saved_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        last_read INTEGER NOT NULL,
                        byte_size INTEGER NOT NULL
                    );
                    CREATE INDEX loft_entries_expiry ON loft_entries(expires_at) WHERE expires_at IS NOT NULL;
                    CREATE INDEX loft_entries_last_read ON loft_entries(last_read);
                    """)
            // The totals a quota is checked against, kept by triggers in the transaction of every change, so that
            // opening reads one row and no writer (of any process) can leave them wrong.
            try db.execute(
                sql: """
                    CREATE TABLE loft_usage (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        bytes INTEGER NOT NULL,
                        rows INTEGER NOT NULL
                    );
                    INSERT INTO loft_usage (id, bytes, rows) VALUES (1, 0, 0);
                    CREATE TRIGGER loft_entries_inserted AFTER INSERT ON loft_entries BEGIN
                        UPDATE loft_usage SET bytes = bytes + NEW.byte_size, rows = rows + 1 WHERE id = 1;
                    END;
                    CREATE TRIGGER loft_entries_deleted AFTER DELETE ON loft_entries BEGIN
                        UPDATE loft_usage SET bytes = bytes - OLD.byte_size, rows = rows - 1 WHERE id = 1;
                    END;
                    CREATE TRIGGER loft_entries_resized AFTER UPDATE OF byte_size ON loft_entries BEGIN
                        UPDATE loft_usage SET bytes = bytes - OLD.byte_size + NEW.byte_size WHERE id = 1;
                    END;
                    """)
        }
        return migrator
    }

    static let upsert = """
        INSERT INTO loft_entries (key, value, type, saved_at, expires_at, last_read, byte_size)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, type = excluded.type, saved_at = excluded.saved_at,
            expires_at = excluded.expires_at, last_read = excluded.last_read, byte_size = excluded.byte_size
        """
    /// The value, unless it is larger than `?` bytes (a hostile row is not loaded), its type, its save time and
    /// its length.
    static let select = """
        SELECT CASE WHEN length(value) <= ? THEN value END, type, saved_at, length(value)
        FROM loft_entries WHERE key = ?
        """
    static let selectSavedAt = "SELECT saved_at FROM loft_entries WHERE key = ?"
    static let touch = "UPDATE loft_entries SET last_read = ? WHERE key = ? AND last_read < ?"
    static let delete = "DELETE FROM loft_entries WHERE key = ?"
    static let deleteID = "DELETE FROM loft_entries WHERE id = ?"
    static let usage = "SELECT bytes, rows FROM loft_usage WHERE id = 1"
    static let lastUse = "SELECT max(last_read) FROM loft_entries"
    static let keysUnder = "SELECT key FROM loft_entries WHERE key = ? OR (key >= ? AND key < ?)"
    static let allKeys = "SELECT key FROM loft_entries"
    /// Eviction's candidates: expired rows not written by this transaction, soonest expired first.
    static let expired = """
        SELECT id, byte_size FROM loft_entries WHERE expires_at <= ? AND last_read < ? ORDER BY expires_at
        """
    /// Eviction's candidates: least recently used first.
    static let leastRecentlyUsed = "SELECT id, byte_size, last_read FROM loft_entries ORDER BY last_read"
}
