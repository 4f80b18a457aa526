extension SQLiteQueryCache {
    /// How much the database may hold. A save that goes over it deletes, in the same transaction, expired rows
    /// (soonest expired first), then the least recently used (read or saved), until the total fits.
    public enum Quota: Sendable, Hashable {
        /// At most this many bytes of keys and values (the rows' `byte_size`; the file is larger by SQLite's
        /// pages and indexes).
        case bytes(Int)
        /// At most this many rows (keys).
        case rows(Int)

        /// What a row of `size` bytes counts against the quota.
        func weight(ofRowOf size: Int64) -> Int64 {
            switch self {
            case .bytes: size
            case .rows: 1
            }
        }

        /// How far the totals are over the quota (zero or less: within it).
        func excess(bytes: Int64, rows: Int64) -> Int64 {
            switch self {
            case .bytes(let limit): bytes - Int64(limit)
            case .rows(let limit): rows - Int64(limit)
            }
        }
    }

    /// How hard a write works to survive more than a crash of the process (SQLite's `synchronous` setting in
    /// WAL mode).
    public enum Durability: Sendable, Hashable {
        /// Flush the log to the disk at each commit (`synchronous = FULL`): a power cut keeps every committed
        /// write too. The default.
        case flushed
        /// Flush at checkpoints only (`synchronous = NORMAL`): faster, and every committed write survives a
        /// crash of the process, but a power cut may lose the last commits (never corrupting the database).
        case processCrashSafe
    }

    /// What opening does with a database file that is damaged (garbage, truncated, not a database).
    public enum CorruptionPolicy: Sendable, Hashable {
        /// Throw `CacheError.corruptStore` and leave the file as it is (the default).
        case fail
        /// Move the file (and its `-wal` and `-shm` companions) aside, to the same name followed by
        /// `.corrupt-` and the time, and create a new, empty database in its place; `movedAside` says where.
        case moveAsideAndRecreate
    }
}
