#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The record files: opening the directory, finding, reading and deleting a key's file, and what is known of
/// each file (its size and age, read or not yet).
extension JSONFileQueryCache {
    func open() {
        let names: [String]
        do throws(FileSystemError) {
            names = try fileSystem.contents(of: path)
        } catch {
            return
        }
        state.withLock { $0.hasDirectory = true }
        // Temporary files are left only by a process that died mid-write.
        for name in names where CacheFileName.isTemporary(name) {
            try? fileSystem.remove(filePath(name))
        }
        guard byteQuota != nil else { return }
        // Sizes and ages from the file system: no record is read (reading 100,000 took seconds).
        var found = fileSystem.regularFileStatuses(in: path, names: names.filter(CacheFileName.isRecord))
        found.removeAll { $0.status.bytes > recordLimit }
        found.sort { ($0.status.modified, $0.name) < ($1.status.modified, $1.name) }
        state.withLock { state in
            let known = Set(state.records.values.map(\.name))
            for (name, status) in found where !known.contains(name) {
                state.unread[name] = status.bytes
                state.unreadOrder.append(name)
                state.bytes += status.bytes
            }
        }
    }

    /// Stops counting the unread file `name` (it was read, saved, removed, or found not to be a record).
    static func forgetUnread(_ name: String, in state: inout State) {
        guard let bytes = state.unread.removeValue(forKey: name) else { return }
        state.bytes -= bytes
        if state.unread.isEmpty {
            state.unreadOrder = []
            state.unreadNext = 0
        }
    }

    /// The least recently modified unread file, if any.
    static func oldestUnread(in state: inout State) -> String? {
        while state.unreadNext < state.unreadOrder.count {
            let name = state.unreadOrder[state.unreadNext]
            state.unreadNext += 1
            if state.unread[name] != nil { return name }
        }
        return nil
    }

    /// Whether the file `name` holds a record of this version under its own name (what eviction deletes).
    func isOwnRecord(_ name: String) -> Bool {
        guard let data = try? read(name), let header = try? JSONDecoder().decode(CacheFileHeader.self, from: data)
        else { return false }
        return header.format == CacheFileRecord<Never>.format
            && (name.hasPrefix("h_") || CacheFileName.direct(header.key) == name)
    }

    /// The file that holds `key` and its contents: the direct name if it exists, else the hashed probe whose
    /// record names `key` (another key with the same hash may hold an earlier probe).
    func file(of key: QueryKey) throws(CacheError) -> (name: String, data: Data)? {
        if let direct = CacheFileName.direct(key) {
            return try read(direct).map { (direct, $0) }
        }
        for probe in 0..<CacheFileName.probeLimit {
            let name = CacheFileName.hashed(key, probe: probe)
            guard let data = try read(name) else { continue }
            if (try? header(of: data, name: name, key: key))?.key == key { return (name, data) }
        }
        return nil
    }

    func filePath(_ name: String) -> String {
        path + "/" + name
    }

    func read(_ name: String) throws(CacheError) -> Data? {
        do throws(FileSystemError) {
            return try fileSystem.read(filePath(name), limit: recordLimit)
        } catch {
            throw .readFailed(path: error.path, reason: error.reason)
        }
    }

    func delete(_ name: String) throws(CacheError) {
        do throws(FileSystemError) {
            try fileSystem.remove(filePath(name))
        } catch {
            throw .writeFailed(path: error.path, reason: error.reason)
        }
    }

    func header(of data: Data, name: String, key: QueryKey) throws(CacheError) -> CacheFileHeader {
        guard !data.isEmpty else { throw .corruptEntry(key: key, path: filePath(name), reason: "empty file") }
        let header: CacheFileHeader
        do {
            header = try JSONDecoder().decode(CacheFileHeader.self, from: data)
        } catch {
            throw .corruptEntry(key: key, path: filePath(name), reason: CacheError.reason(for: error))
        }
        guard header.format == CacheFileRecord<Never>.format else {
            throw .corruptEntry(
                key: key, path: filePath(name), reason: CacheFileRecord<Never>.unreadableReason(header.format))
        }
        return header
    }

    /// A read found that the file `name` is not a record of this version under its own name: it is no longer
    /// counted if it was unread (it never was otherwise). Returns `error`, for the caller to throw.
    func notARecord(_ name: String, _ error: CacheError) -> CacheError {
        state.withLock { Self.forgetUnread(name, in: &$0) }
        return error
    }

    /// Records what a read found of `key`'s file, unless the records changed since the read began (`start`).
    func remember(_ key: QueryKey, _ record: Record, unlessChangedSince start: UInt64) {
        state.withLock { state in
            guard state.changes == start else { return }
            Self.forgetUnread(record.name, in: &state)
            Self.store(record, for: key, in: &state)
        }
    }

    /// Records (or replaces) what is known of `key`'s file, as the most recently used.
    static func store(_ record: Record, for key: QueryKey, in state: inout State) {
        if let old = state.records.updateValue(record, forKey: key) { state.bytes -= old.bytes }
        state.bytes += record.bytes
        state.order.touch(key)
        state.changes += 1
    }
}
