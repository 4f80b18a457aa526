import Foundation

/// The pending mutation calls of a client written to its persistent cache (one record, under `key`, listing
/// them in submission order), so that a restart finds them again (`QueryClient.resumePausedMutations()`).
///
/// **Behavior**
/// - A call is written before its request is first sent, and cleared once it settled: a process that dies in
///   between leaves it listed, and it is sent again after the restart (at least once).
/// - The list keeps submission order, whatever order the calls' tasks write in.
/// - The record is read from the cache on first use, so calls made before a restart are kept when new ones
///   are written.
/// - A failure to read or write is reported on the client's events as `persistenceFailed`; the call goes on.
/// - Writes are synchronous and one at a time: the caller waits until the record is in the provider.
package final class MutationJournal: Sendable {
    private struct State: Sendable {
        /// Nil until read from the cache.
        var records: [MutationRecord]?
        /// The listed calls this client runs: written by it, or resumed by it.
        var claimed: Set<String> = []
        /// The submission order of this client's calls that may be written (their tasks write in any order).
        var positions: [String: UInt64] = [:]
        var nextPosition: UInt64 = 0
    }

    /// Where the journal is stored in the client's persistent cache.
    package static let key: QueryKey = ["loft", "mutations"]

    private let provider: @Sendable () -> (any QueryCacheType)?
    private let context: ClientContext
    private let state = Locked(State())

    package init(context: ClientContext, provider: @escaping @Sendable () -> (any QueryCacheType)?) {
        self.context = context
        self.provider = provider
    }

    /// The calls listed, in submission order (read from the cache on first use).
    package var records: [MutationRecord] {
        guard let cache = provider() else { return [] }
        return state.withLock { state in load(&state, from: cache) }
    }

    /// Notes a call's place in the submission order when it is submitted, so that it is listed in that place
    /// whenever its task writes it. Nothing is noted without a mutation key (such a call is never listed) or a
    /// persistent cache. Takes the call as submitted, by reference: most calls are never listed, and are told
    /// so without copying what they hold.
    func reserve(_ call: MutationSubmission) {
        guard Self.mayList(call.mutationKey), provider() != nil else { return }
        let idempotencyKey = call.key.string
        state.withLock { state in
            state.nextPosition += 1
            state.positions[idempotencyKey] = state.nextPosition
        }
    }

    /// Claims a listed call that no call of this client runs, to resume it; false when one does (or another
    /// resume claimed it first).
    package func claim(_ idempotencyKey: String) -> Bool {
        state.withLock { $0.claimed.insert(idempotencyKey).inserted }
    }

    /// Gives up a claim made to resume a call that could not be resumed.
    package func unclaim(_ idempotencyKey: String) {
        _ = state.withLock { $0.claimed.remove(idempotencyKey) }
    }

    /// Lists a call, unless it is listed already; returns whether it is listed.
    ///
    /// Nothing is written without a persistent cache, a mutation key, or a request that encodes. Takes the
    /// call by reference, as `reserve(_:)` does.
    @discardableResult
    func write(_ call: MutationSubmission) -> Bool {
        guard let mutationKey = call.mutationKey, let cache = provider() else { return false }
        guard let request = encode(call.request, mutationKey: mutationKey) else { return false }
        let record = MutationRecord(
            idempotencyKey: call.key.string, mutationKey: mutationKey, scope: call.scope,
            submittedAt: call.submittedAt, meta: call.meta, request: request)
        return state.withLock { state -> Bool in
            var records = load(&state, from: cache)
            state.claimed.insert(record.idempotencyKey)
            guard !records.contains(where: { $0.idempotencyKey == record.idempotencyKey }) else { return true }
            // Before the calls submitted after it; calls read from the cache were submitted before any.
            let position = state.positions[record.idempotencyKey] ?? .max
            let index = records.firstIndex { (state.positions[$0.idempotencyKey] ?? 0) > position }
            records.insert(record, at: index ?? records.endIndex)
            state.records = records
            save(records, to: cache)
            return true
        }
    }

    /// Whether the journal may list a call: only one with a mutation key, which finds its fetcher again after a
    /// restart (its defaults are registered under that key).
    package static func mayList(_ mutationKey: QueryKey?) -> Bool {
        mutationKey != nil
    }

    /// Takes a call off the list, if it is on it.
    package func clear(_ idempotencyKey: String) {
        guard let cache = provider() else { return }
        state.withLock { state in
            state.claimed.remove(idempotencyKey)
            state.positions[idempotencyKey] = nil
            var records = load(&state, from: cache)
            guard let index = records.firstIndex(where: { $0.idempotencyKey == idempotencyKey }) else { return }
            records.remove(at: index)
            state.records = records
            save(records, to: cache)
        }
    }

    private func load(_ state: inout State, from cache: any QueryCacheType) -> [MutationRecord] {
        if let records = state.records { return records }
        var records: [MutationRecord] = []
        do {
            records = try cache.get([MutationRecord].self, for: Self.key)?.value ?? []
        } catch {
            context.emit(.persistenceFailed(Self.key, error: error))
        }
        state.records = records
        return records
    }

    private func save(_ records: [MutationRecord], to cache: any QueryCacheType) {
        do {
            if records.isEmpty {
                try cache.remove(for: Self.key)
            } else {
                try cache.save(records, for: Self.key, savedAt: context.now, expiresAt: nil)
            }
        } catch {
            context.emit(.persistenceFailed(Self.key, error: error))
        }
    }

    private func encode(_ request: any Sendable, mutationKey: QueryKey) -> String? {
        guard let encodable = request as? any Encodable else { return nil }
        do {
            return String(decoding: try JSONEncoder().encode(encodable), as: UTF8.self)
        } catch {
            let failure = CacheError.encodingFailed(
                key: mutationKey, type: "\(type(of: request))", reason: "\(error)")
            context.emit(.persistenceFailed(Self.key, error: failure))
            return nil
        }
    }
}
