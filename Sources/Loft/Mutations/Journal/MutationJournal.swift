import Foundation

/// The pending mutation calls of a client saved in its persistent cache, one record per call under
/// `["loft", "mutations", idempotencyKey]`, so that a restart finds them again
/// (`QueryClient.resumePausedMutations()`). When a call is saved and cleared is the call's state machine's
/// decision (`MutationCallStateMachine`); this type only reads and writes the records.
///
/// **Behavior**
/// - A record is written before the call's request is first sent and removed once the call settled; a process
///   that dies in between leaves it, and it is sent again after the restart (at least once).
/// - Within one process a call is run once: a call this client wrote, resumed or settled is never handed out
///   again by `unclaimedEntries()`.
/// - Records are read one by one, in submission order: a record that cannot be read (truncated, garbage, of
///   another type or a newer format, a link, a FIFO, a directory) is reported on the client's events as
///   `persistenceFailed` naming its key (and, from a file cache, its file) and left in place; every other call
///   still resumes. One record per call: a call is never listed twice.
/// - A failure to write is reported the same way; the call goes on (it is then not saved).
/// - A journal of the earlier one-record format is moved to one record per call on first use.
/// - A provider that cannot list its keys (`QueryCacheType.keys(under:)`) is reported once, and no call is
///   written to it: it could not be found again.
package final class MutationJournal: Sendable {
    /// A call the journal lists: its record and where it is stored.
    package struct Entry: Sendable {
        package let key: QueryKey
        package let record: MutationRecord
    }

    private struct State: Sendable {
        /// The calls listed, by idempotency key; nil until read from the cache.
        var entries: [String: Entry]?
        /// The calls this client ran or runs: written, resumed, or settled by it.
        var claimed: Set<String> = []
        /// The provider cannot list its keys: nothing is written that could not be found again.
        var cannotList = false
        /// Above the position of every call read from the cache: a call of this process is placed at this plus
        /// its id.
        var positionBase: UInt64 = 0
    }

    /// Where the journal's records are stored in the client's persistent cache.
    package static let prefix: QueryKey = ["loft", "mutations"]

    private let provider: @Sendable () -> (any QueryCacheType)?
    private let context: ClientContext
    private let state = Locked(State())

    package init(context: ClientContext, provider: @escaping @Sendable () -> (any QueryCacheType)?) {
        self.context = context
        self.provider = provider
    }

    /// The key of a call's record.
    package static func key(of idempotencyKey: String) -> QueryKey {
        QueryKey(parts: prefix.parts + [.string(idempotencyKey)])
    }

    /// Whether a call may be saved: it has a mutation key (its defaults are found by it after a restart), the
    /// client has a persistent cache, and its request is `Codable`.
    func mayWrite(mutationKey: QueryKey?, request: any Sendable) -> Bool {
        mutationKey != nil && request is any Codable && provider() != nil
    }

    /// The calls listed, in submission order (read from the cache on first use).
    package var entries: [Entry] {
        guard let cache = provider() else { return [] }
        return ordered(load(from: cache))
    }

    /// The records listed, in submission order.
    package var records: [MutationRecord] {
        entries.map(\.record)
    }

    /// The listed calls no call of this client runs or ran, in submission order; each is now claimed.
    func unclaimedEntries() -> [Entry] {
        guard let cache = provider() else { return [] }
        let all = ordered(load(from: cache))
        return state.withLock { state in all.filter { state.claimed.insert($0.record.idempotencyKey).inserted } }
    }

    /// Gives up the claim on a call that could not be resumed (no defaults yet).
    func unclaim(_ entry: Entry) {
        _ = state.withLock { $0.claimed.remove(entry.record.idempotencyKey) }
    }

    /// Saves a call. Nothing is written without a persistent cache, a mutation key, or a request that encodes.
    func write(_ call: MutationCallRecord) {
        guard let mutationKey = call.mutationKey, let cache = provider() else { return }
        let idempotencyKey = call.key.string
        let key = Self.key(of: idempotencyKey)
        guard let request = encode(call.request, key: key) else { return }
        _ = load(from: cache)
        guard !state.withLock({ $0.cannotList }) else { return }
        // Its place in submission order, whatever order the calls' tasks write in: after every call read from
        // the cache, in the order of the calls' ids.
        let position = state.withLock { state -> UInt64 in
            state.claimed.insert(idempotencyKey)
            return state.positionBase + call.id
        }
        let record = MutationRecord(
            idempotencyKey: idempotencyKey, mutationKey: mutationKey, scope: call.scope,
            submittedAt: call.submittedAt, meta: call.meta, request: request, position: position)
        do {
            try cache.save(record, for: key, savedAt: context.now, expiresAt: nil)
            state.withLock { $0.entries?[idempotencyKey] = Entry(key: key, record: record) }
        } catch {
            context.emit(.persistenceFailed(key, error: error))
        }
    }

    /// Removes a call's record, if there is one. The call stays claimed: it is never run again here.
    func clear(_ idempotencyKey: String) {
        guard let cache = provider() else { return }
        let key = Self.key(of: idempotencyKey)
        state.withLock { state in
            state.claimed.insert(idempotencyKey)
            state.entries?[idempotencyKey] = nil
        }
        do {
            try cache.remove(for: key)
        } catch {
            context.emit(.persistenceFailed(key, error: error))
        }
    }

    // MARK: - Reading

    private func ordered(_ entries: [Entry]) -> [Entry] {
        entries.sorted {
            ($0.record.submittedAt, $0.record.position ?? 0, $0.record.idempotencyKey)
                < ($1.record.submittedAt, $1.record.position ?? 0, $1.record.idempotencyKey)
        }
    }

    /// The entries, read record by record on first use; each record that cannot be read is reported.
    private func load(from cache: any QueryCacheType) -> [Entry] {
        if let entries = state.withLock({ $0.entries }) { return Array(entries.values) }
        var read: [String: Entry] = [:]
        var failures: [(QueryKey, any Error)] = []
        var cannotList = false
        do {
            for key in try cache.keys(under: Self.prefix) {
                if key == Self.prefix {
                    read.merge(migrate(from: cache, &failures), uniquingKeysWith: { first, _ in first })
                    continue
                }
                guard key.parts.count == 3 else { continue }
                do {
                    guard let record = try cache.get(MutationRecord.self, for: key)?.value else { continue }
                    try record.checkFormat(key: key)
                    guard Self.key(of: record.idempotencyKey) == key else {
                        throw CacheError.undecodableValue(
                            key: key, storedType: "the record of \(record.idempotencyKey)",
                            expectedType: "MutationRecord", reason: "a record stored under another call's key")
                    }
                    read[record.idempotencyKey] = Entry(key: key, record: record)
                } catch {
                    failures.append((key, error))
                }
            }
        } catch {
            if case .unavailable = error { cannotList = true }
            failures.append((Self.prefix, error))
        }
        let entries = state.withLock { state -> [String: Entry] in
            // Another thread may have read them first: its read stands.
            if let entries = state.entries { return entries }
            state.entries = read
            state.cannotList = cannotList
            state.positionBase = read.values.compactMap(\.record.position).max() ?? 0
            return read
        }
        for (key, error) in failures { context.emit(.persistenceFailed(key, error: error)) }
        return Array(entries.values)
    }

    /// Moves a journal of the one-record format (every call in one list under `prefix`) to one record per call.
    private func migrate(from cache: any QueryCacheType, _ failures: inout [(QueryKey, any Error)]) -> [String: Entry] {
        var moved: [String: Entry] = [:]
        do {
            let records = try cache.get([MutationRecord].self, for: Self.prefix)?.value ?? []
            for (index, var record) in records.enumerated() where moved[record.idempotencyKey] == nil {
                record.position = UInt64(index + 1)
                let key = Self.key(of: record.idempotencyKey)
                try cache.save(record, for: key, savedAt: context.now, expiresAt: nil)
                moved[record.idempotencyKey] = Entry(key: key, record: record)
            }
            try cache.remove(for: Self.prefix)
        } catch {
            failures.append((Self.prefix, error))
        }
        return moved
    }

    private func encode(_ request: any Sendable, key: QueryKey) -> String? {
        guard let encodable = request as? any Encodable else { return nil }
        do {
            return String(decoding: try JSONEncoder().encode(encodable), as: UTF8.self)
        } catch {
            let failure = CacheError.encodingFailed(key: key, type: "\(type(of: request))", reason: "\(error)")
            context.emit(.persistenceFailed(key, error: failure))
            return nil
        }
    }
}
