#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A persistent-cache provider on disk: one JSON file per key in `directory`, so that data survives restarts.
///
/// ```swift
/// let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("my-app-cache")
/// let cache = JSONFileQueryCache(directory: folder, byteQuota: 50 << 20)
/// ```
///
/// **Behavior**
/// - Each save writes a new temporary file beside the record and renames it over the record: a process killed
///   at any moment leaves the old or the new value, never a torn file. With `.flushed` durability (the
///   default) the file is also flushed to the disk before the rename, as `Data.write(options: .atomic)` does.
/// - A key becomes a file name by a one-to-one escaping to `[a-z0-9-_]` (long keys are hashed, and the record
///   names its key), so no key escapes the directory and two keys never share a file.
/// - A corrupt, truncated, empty or foreign record is reported as `CacheError.corruptEntry` when read and is
///   otherwise ignored; the other records are unaffected, and the next save of that key replaces it. A record
///   is checked to name the key it is read for: another key's record copied over its file is a `corruptEntry`,
///   never another key's value. Files whose names are not record names are never read nor deleted; only the
///   cache's own temporary files (a record's name, `.tmp-`, a process id and a counter) are deleted as such.
/// - Only regular files are read: a symbolic link named like a record (even one into the directory, or a
///   dangling one) is never followed, and a FIFO or a device is never opened in a way that waits; each is a
///   `CacheError.readFailed`. A record larger than `maximumRecordBytes` (64 MiB) is neither written
///   (`writeFailed`) nor read (`readFailed`).
/// - A value saved by a type that no longer decodes it is reported as `CacheError.undecodableValue`. A record
///   that a newer version of this cache wrote (format `loft-cache/2` and on) is a `corruptEntry` when read and
///   is never replaced: a save of its key throws `writeFailed`, and the file stays for the version that reads
///   it.
/// - With a `byteQuota`, a save that goes over it first deletes expired records, then the least recently used
///   (saved or read) until the total fits. Opening reads no record: it lists the directory and takes each
///   record file's size and modification time from the file system. The files not read nor saved since are
///   the least recently used, oldest modification first (their expiry is known once read); before deleting
///   one, eviction reads its header, and a file that is not a record of this version (a newer version's, a
///   foreign or a corrupt one) is left in place and no longer counted, as is one a read finds so.
/// - Write failures (read-only directory, no space, no permission) are thrown as `CacheError.writeFailed`;
///   the previous record stays intact. Making the cache never fails: a missing directory is created on the
///   first save, and a failure to create it is that save's error. A directory removed while the cache is in
///   use is created again by the next save, which then succeeds.
/// - Thread-safe. Writes to the directory are serialised by one lock; encoding, decoding and reads run outside
///   it. One process should use a directory at a time (a second one would see the first's temporary files).
public final class JSONFileQueryCache: QueryCacheType {
    /// How hard a save works to survive more than a crash of the process.
    public enum Durability: Sendable, Hashable {
        /// Flush each record to the disk (`fsync`) before it replaces the old one: a power cut leaves the old
        /// or the new value too. The default.
        case flushed
        /// Skip the flush: several times faster on a real disk, and still whole after a crash of the process,
        /// but a power cut may lose the last saves (or leave them empty, on some file systems).
        case processCrashSafe
    }

    struct Record: Sendable {
        var name: String
        var bytes: Int
        var savedAt: SchedulerInstant
        var expiresAt: SchedulerInstant?
    }

    struct State: Sendable {
        var records: [QueryKey: Record] = [:]
        var order = LRUList<QueryKey>()
        var bytes = 0
        var temporaryCounter: UInt64 = 0
        var hasDirectory = false
        /// Bumped by every change of `records`: a read applies what it learnt of a file only when nothing
        /// changed them since it began (a racing save or removal knows better).
        var changes: UInt64 = 0
        /// The record files found when the cache opened (with a quota) and not read, saved nor removed since:
        /// their sizes, counted in `bytes`. They are less recently used than every record in `records`.
        var unread: [String: Int] = [:]
        /// The names of `unread`, oldest modification first, from `unreadNext` on (a name no longer in
        /// `unread` is skipped).
        var unreadOrder: [String] = []
        var unreadNext = 0
    }

    /// The largest record, in bytes, that is written or read: 64 MiB. A larger file is not a record this
    /// cache wrote; reading it whole could exhaust memory.
    public static let maximumRecordBytes = 64 << 20

    /// The folder of the records.
    public let directory: URL
    /// The most bytes the records may take, if limited.
    public let byteQuota: Int?
    /// Whether saves are flushed to the disk.
    public let durability: Durability
    let path: String
    let fileSystem: any FileSystem
    /// The largest record written or read (`maximumRecordBytes`; smaller in tests).
    let recordLimit: Int
    /// Internal for the extension in the file beside this one.
    let state = Locked(State())

    /// Makes a cache in `directory` (created when missing).
    ///
    /// - Parameters:
    ///   - directory: the folder of the records; give each cache its own.
    ///   - byteQuota: the most bytes the records may take (default: no limit).
    ///   - durability: whether saves are flushed to the disk (default `.flushed`).
    public convenience init(directory: URL, byteQuota: Int? = nil, durability: Durability = .flushed) {
        self.init(directory: directory, byteQuota: byteQuota, durability: durability, fileSystem: POSIXFileSystem())
    }

    package init(
        directory: URL, byteQuota: Int?, durability: Durability = .flushed, fileSystem: any FileSystem,
        recordLimit: Int = maximumRecordBytes
    ) {
        self.directory = directory
        self.recordLimit = recordLimit
        self.byteQuota = byteQuota
        self.durability = durability
        self.fileSystem = fileSystem
        path = directory.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? directory.path
        open()
    }

    // MARK: - QueryCacheType

    /// Writes `value` atomically; with a quota, evicts expired then least recently used records to fit.
    ///
    /// - Throws: `CacheError.encodingFailed`, `.exceedsQuota` (nothing is written), or `.writeFailed` (the
    ///   previous record is intact).
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) throws(CacheError) {
        let record = CacheFileRecord(
            format: CacheFileRecord<Value>.format, key: key, savedAt: savedAt, expiresAt: expiresAt,
            type: "\(Value.self)", value: value)
        let data = try CacheCoding.encode(record, key: key)
        guard data.count <= recordLimit else {
            throw .writeFailed(
                path: path, reason: "a record of \(data.count) bytes is larger than \(recordLimit) bytes")
        }
        if let byteQuota, data.count > byteQuota {
            throw .exceedsQuota(key: key, bytes: data.count, quota: byteQuota)
        }
        let result = state.withLock { state -> Result<Void, CacheError> in
            Result { () throws(CacheError) in try write(data, record: record, in: &state) }
        }
        try result.get()
    }

    /// Reads the record of `key`; reading counts as a use for the quota's LRU order.
    ///
    /// - Throws: `CacheError.corruptEntry`, `.undecodableValue`, or `.readFailed`.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError)
        -> CachedValue<Value>?
    {
        let (known, start) = state.withLock { state -> (String?, UInt64) in
            guard let record = state.records[key] else { return (nil, state.changes) }
            state.order.touch(key)
            return (record.name, state.changes)
        }
        var found: (name: String, data: Data)?
        if let known, let data = try read(known) {
            found = (known, data)
        } else {
            found = try file(of: key)
        }
        guard let (name, data) = found else {
            state.withLock { state in
                if state.changes == start { drop(key, from: &state) }
            }
            return nil
        }
        let decoded: CacheFileBody<Value>
        do {
            decoded = try JSONDecoder().decode(CacheFileBody<Value>.self, from: data)
        } catch {
            let header: CacheFileHeader
            do throws(CacheError) {
                header = try self.header(of: data, name: name, key: key)
            } catch {
                throw notARecord(name, error)
            }
            throw .undecodableValue(
                key: key, storedType: header.type, expectedType: "\(Value.self)",
                reason: CacheError.reason(for: error))
        }
        guard decoded.format == CacheFileRecord<Value>.format else {
            throw notARecord(
                name,
                .corruptEntry(
                    key: key, path: filePath(name), reason: CacheFileRecord<Never>.unreadableReason(decoded.format)))
        }
        guard decoded.key == key else {
            throw notARecord(
                name, .corruptEntry(key: key, path: filePath(name), reason: "the record is the one of \(decoded.key)"))
        }
        remember(
            key, Record(name: name, bytes: data.count, savedAt: decoded.savedAt, expiresAt: decoded.expiresAt),
            unlessChangedSince: start)
        return CachedValue(value: decoded.value, savedAt: decoded.savedAt)
    }

    /// When the record of `key` was saved (read from its file when not known yet).
    public func savedAt(forKey key: QueryKey) -> SchedulerInstant? {
        let (known, start) = state.withLock { ($0.records[key]?.savedAt, $0.changes) }
        if let known { return known }
        guard let (name, data) = try? file(of: key), let header = try? header(of: data, name: name, key: key)
        else { return nil }
        remember(
            key, Record(name: name, bytes: data.count, savedAt: header.savedAt, expiresAt: header.expiresAt),
            unlessChangedSince: start)
        return header.savedAt
    }

    /// Deletes the record of `key`.
    ///
    /// - Throws: `CacheError.writeFailed` when the file cannot be deleted.
    public func remove(for key: QueryKey) throws(CacheError) {
        let result = state.withLock { state -> Result<Void, CacheError> in
            Result { () throws(CacheError) in
                var name = state.records[key]?.name
                if name == nil { name = try file(of: key)?.name }
                guard let name else { return }
                try delete(name)
                drop(key, from: &state)
                Self.forgetUnread(name, in: &state)
            }
        }
        try result.get()
    }

    /// Deletes every record and stale temporary file (other files in the directory are left alone).
    ///
    /// - Throws: `CacheError.writeFailed` for the first file that could not be deleted; the others are deleted.
    public func removeAll() throws(CacheError) {
        let result = state.withLock { state -> Result<Void, CacheError> in
            var firstError: CacheError?
            let names = (try? fileSystem.contents(of: path)) ?? []
            for name in names where CacheFileName.isRecord(name) || CacheFileName.isTemporary(name) {
                do throws(CacheError) { try delete(name) } catch { firstError = firstError ?? error }
            }
            let (hasDirectory, changes) = (state.hasDirectory, state.changes)
            state = State()
            state.hasDirectory = hasDirectory
            state.changes = changes + 1
            return firstError.map { .failure($0) } ?? .success(())
        }
        try result.get()
    }

    /// The keys of the records under `prefix`. A record with a direct name is listed by its name, whatever
    /// its file holds (a damaged file, a link, a FIFO or a directory in its place is listed, and reading it
    /// reports what is wrong); one with a hashed name is listed when its header names its key.
    ///
    /// - Throws: `CacheError.readFailed` when the directory exists but cannot be listed.
    public func keys(under prefix: QueryKey) throws(CacheError) -> [QueryKey] {
        let names: [String]
        do throws(FileSystemError) {
            names = try fileSystem.contents(of: path)
        } catch {
            if error.code == ENOENT { return [] }
            throw .readFailed(path: error.path, reason: error.reason)
        }
        var keys: [QueryKey] = []
        for name in names where CacheFileName.isRecord(name) {
            if let key = CacheFileName.key(ofDirect: name) {
                if key.hasPrefix(prefix) { keys.append(key) }
            } else if let data = try? read(name),
                let header = try? JSONDecoder().decode(CacheFileHeader.self, from: data), header.key.hasPrefix(prefix)
            {
                keys.append(header.key)
            }
        }
        return keys
    }

    /// The bytes of the records this cache knows of (all of them when it has a quota).
    public var byteCount: Int {
        state.withLock { $0.bytes }
    }

    // MARK: - Actions (under the lock)

    private func write<Value>(_ data: Data, record: CacheFileRecord<Value>, in state: inout State) throws(CacheError) {
        if !state.hasDirectory {
            do throws(FileSystemError) {
                try fileSystem.createDirectory(path)
            } catch {
                throw .writeFailed(path: error.path, reason: error.reason)
            }
            state.hasDirectory = true
        }
        let key = record.key
        var name = state.records[key]?.name ?? ""
        if name.isEmpty {
            do throws(CacheError) {
                name = try freeName(for: key)
            } catch {
                // A newer version's record holds the key's file: it is not this version's to count.
                if let direct = CacheFileName.direct(key) { Self.forgetUnread(direct, in: &state) }
                throw error
            }
        }
        do throws(FileSystemError) {
            do {
                try writeFile(data, named: name, in: &state)
            } catch  where error.code == ENOENT || error.code == ENOTDIR {
                // The directory went (or a file took its place) since it was made: make it again, once.
                state.hasDirectory = false
                try fileSystem.createDirectory(path)
                state.hasDirectory = true
                try writeFile(data, named: name, in: &state)
            }
        } catch {
            throw .writeFailed(path: error.path, reason: error.reason)
        }
        Self.forgetUnread(name, in: &state)
        Self.store(
            Record(name: name, bytes: data.count, savedAt: record.savedAt, expiresAt: record.expiresAt), for: key,
            in: &state)
        evict(keeping: key, now: record.savedAt, in: &state)
    }

    /// Refuses to replace the file `name` when a newer version of the cache wrote it (the version that reads it
    /// keeps it); anything else there (nothing, a record, a foreign or corrupt file) may be replaced.
    private func keepNewerRecord(named name: String) throws(CacheError) {
        guard let data = try? read(name), let header = try? JSONDecoder().decode(CacheFileHeader.self, from: data),
            CacheFileRecord<Never>.isNewer(header.format)
        else { return }
        throw .writeFailed(path: filePath(name), reason: CacheFileRecord<Never>.unreadableReason(header.format))
    }

    /// Writes `data` as the file `name` through a temporary file of this process.
    private func writeFile(_ data: Data, named name: String, in state: inout State) throws(FileSystemError) {
        state.temporaryCounter += 1
        let temporary = name + CacheFileName.temporaryMarker + "\(getpid())-\(state.temporaryCounter)"
        try fileSystem.writeAtomically(
            data, to: filePath(name), temporaryPath: filePath(temporary), flushes: durability == .flushed)
    }

    /// Deletes expired records, then the least recently used, until the total fits the quota.
    private func evict(keeping key: QueryKey, now: SchedulerInstant, in state: inout State) {
        guard let byteQuota, state.bytes > byteQuota else { return }
        let expired = state.records
            .filter { $0.key != key && ($0.value.expiresAt.map { $0 <= now } ?? false) }
            .sorted { ($0.value.expiresAt ?? now) < ($1.value.expiresAt ?? now) }
            .map(\.key)
        var victims = expired[...]
        while state.bytes > byteQuota {
            if victims.isEmpty, let name = Self.oldestUnread(in: &state) {
                // A file not read since the cache opened: deleted when it is a record of this version.
                if isOwnRecord(name) { guard (try? delete(name)) != nil else { return } }
                Self.forgetUnread(name, in: &state)
                continue
            }
            guard let victim = victims.popFirst() ?? state.order.leastRecent, victim != key,
                let name = state.records[victim]?.name
            else { return }
            // A record that cannot be deleted stays counted: stop rather than loop on it.
            guard (try? delete(name)) != nil else { return }
            drop(victim, from: &state)
        }
    }

    private func drop(_ key: QueryKey, from state: inout State) {
        guard let old = state.records.removeValue(forKey: key) else { return }
        state.bytes -= old.bytes
        state.order.remove(key)
        state.changes += 1
    }

    /// The file to write `key` to: its direct name (unless a newer version's record holds it), or for a long key
    /// the probe that holds it or the first free one (a newer version's record is never taken for one: its
    /// header does not read, so it holds no key of this version).
    private func freeName(for key: QueryKey) throws(CacheError) -> String {
        if let direct = CacheFileName.direct(key) {
            try keepNewerRecord(named: direct)
            return direct
        }
        if let existing = try file(of: key) { return existing.name }
        for probe in 0..<CacheFileName.probeLimit {
            let name = CacheFileName.hashed(key, probe: probe)
            if try read(name) == nil { return name }
        }
        throw .writeFailed(path: filePath(CacheFileName.hashed(key, probe: 0)), reason: "too many keys share a hash")
    }
}
