import Foundation
import Loft

/// A network cache for tests (`AsyncQueryCacheType`): values kept as JSON in memory, and a server that the
/// test makes hang or fail.
///
/// ```swift
/// let store = TestNetworkCache()
/// let test = TestQueryClient(cache: store, cacheConfig: QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
/// store.setMode(.hanging(keys: [["user", 1]]))   // calls of ["user", 1] wait; others answer
/// await store.waitUntilHeld(1)
/// store.setMode(.answering)                      // the held calls go on
/// ```
///
/// **Behavior**
/// - `.answering`: calls read and write the values at once (after one suspension, as a network call).
/// - `.hanging(keys:)`: calls of those keys (of every key when nil) wait, whatever their task's
///   cancellation, until the mode changes; then they go on under the new mode.
/// - `.failing(error)`: every call throws `error`.
/// - `calls` lists every call in the order it started; `waitUntilHeld(_:)` waits without sleeping.
public final class TestNetworkCache: AsyncQueryCacheType {
    /// How the simulated server answers.
    public enum Mode: Sendable {
        case answering
        /// Calls of these keys wait (every call when nil, `removeAll` included).
        case hanging(keys: Set<QueryKey>?)
        case failing(CacheError)
    }

    /// A call the cache received.
    public enum Call: Sendable, Equatable {
        case save(QueryKey)
        case get(QueryKey)
        case remove(QueryKey)
        case removeAll
    }

    private struct State: Sendable {
        var records: [QueryKey: (json: Data, savedAt: SchedulerInstant)] = [:]
        var mode = Mode.answering
        var calls: [Call] = []
        var held: [CheckedContinuation<Void, Never>] = []
        var heldWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// An empty cache that answers.
    public init() {}

    /// Every call, in the order it started.
    public var calls: [Call] {
        state.withLock { $0.calls }
    }

    /// How many calls wait now.
    public var heldCount: Int {
        state.withLock { $0.held.count }
    }

    /// Changes how the server answers; calls held by `.hanging` go on under the new mode.
    public func setMode(_ mode: Mode) {
        let released = state.withLock { state in
            state.mode = mode
            defer { state.held = [] }
            return state.held
        }
        for call in released { call.resume() }
    }

    /// Returns once at least `count` calls wait.
    public func waitUntilHeld(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let isHeld = state.withLock { state in
                if state.held.count >= count { return true }
                state.heldWaiters.append((count, continuation))
                return false
            }
            if isHeld { continuation.resume() }
        }
    }

    /// Stores `value` as JSON.
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) async throws(CacheError) {
        try await admit(.save(key), key: key)
        do {
            let json = try JSONEncoder().encode(value)
            state.withLock { $0.records[key] = (json, savedAt) }
        } catch {
            throw .encodingFailed(key: key, type: "\(Value.self)", reason: "\(error)")
        }
    }

    /// The stored value decoded as `Value`.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) async throws(CacheError)
        -> CachedValue<Value>?
    {
        try await admit(.get(key), key: key)
        guard let record = state.withLock({ $0.records[key] }) else { return nil }
        do {
            return CachedValue(value: try JSONDecoder().decode(Value.self, from: record.json), savedAt: record.savedAt)
        } catch {
            throw .undecodableValue(
                key: key, storedType: "JSON", expectedType: "\(Value.self)", reason: CacheError.reason(for: error))
        }
    }

    /// Removes the value of `key`.
    public func remove(for key: QueryKey) async throws(CacheError) {
        try await admit(.remove(key), key: key)
        _ = state.withLock { $0.records.removeValue(forKey: key) }
    }

    /// Removes every value.
    public func removeAll() async throws(CacheError) {
        try await admit(.removeAll, key: nil)
        state.withLock { $0.records = [:] }
    }

    /// Records the call, then waits while the mode holds it, and throws when the mode fails it.
    private func admit(_ call: Call, key: QueryKey?) async throws(CacheError) {
        state.withLock { $0.calls.append(call) }
        while true {
            let mode = state.withLock { $0.mode }
            switch mode {
            case .answering:
                return
            case .failing(let error):
                throw error
            case .hanging(let keys):
                if let keys, let key, !keys.contains(key) { return }
                await hold()
            }
        }
    }

    private func hold() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.held.append(continuation)
                let count = state.held.count
                let ready = state.heldWaiters.filter { $0.count <= count }.map(\.continuation)
                state.heldWaiters.removeAll { $0.count <= count }
                return ready
            }
            for waiter in ready { waiter.resume() }
        }
    }
}
