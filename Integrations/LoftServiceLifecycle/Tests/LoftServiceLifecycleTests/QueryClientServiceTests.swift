import Dispatch
import Loft
import LoftServiceLifecycle
import LoftTesting
import Logging
import ServiceLifecycle
import Testing

/// A client in a service group: shutting the group down flushes the client's queued writes before it returns.
@Suite(.timeLimit(.minutes(1))) struct QueryClientServiceTests {
    /// A persistent cache whose saves wait at a gate the test opens: a write is queued, and stays so, until
    /// then.
    final class GatedCache: QueryCacheType {
        private let inner = InMemoryQueryCache()
        private let gate = DispatchSemaphore(value: 0)
        private let log = Locked<[String]>([])
        /// Whether a save has begun, and who waits for one.
        private let started = Locked<(isStarted: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        /// Returns once a save has begun (and waits at the gate).
        func waitForSave() async {
            await withCheckedContinuation { continuation in
                let isStarted = started.withLock { started -> Bool in
                    if !started.isStarted { started.waiters.append(continuation) }
                    return started.isStarted
                }
                if isStarted { continuation.resume() }
            }
        }

        var entries: [String] { log.withLock { $0 } }

        func note(_ line: String) {
            log.withLock { $0.append(line) }
        }

        func open() {
            gate.signal()
        }

        func save<Value: Encodable>(
            _ data: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
        )
            throws(CacheError)
        {
            note("saving \(key)")
            let waiters = started.withLock { started in
                started.isStarted = true
                defer { started.waiters = [] }
                return started.waiters
            }
            for waiter in waiters { waiter.resume() }
            gate.wait()
            try inner.save(data, for: key, savedAt: savedAt, expiresAt: expiresAt)
            note("saved \(key)")
        }

        func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError) -> CachedValue<Value>? {
            try inner.get(type, for: key)
        }

        func savedAt(forKey key: QueryKey) -> SchedulerInstant? {
            inner.savedAt(forKey: key)
        }

        func remove(for key: QueryKey) {
            inner.remove(for: key)
        }

        func removeAll() {
            inner.removeAll()
        }
    }

    @Test("graceful shutdown returns only once the client's queued writes are written")
    func shutdownFlushes() async throws {
        let cache = GatedCache()
        let client = QueryClient(cache: cache)
        let group = ServiceGroup(
            configuration: .init(
                services: [QueryClientService(client: client)], gracefulShutdownSignals: [],
                logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        client.setQueryData(42, for: "answer")
        await cache.waitForSave()
        await group.triggerGracefulShutdown()
        // The writer waits at the gate: the group cannot have returned. Opened, the save ends, then the run.
        cache.note("opening")
        cache.open()
        try await running.value
        cache.note("group returned")
        #expect(cache.entries == ["saving answer", "opening", "saved answer", "group returned"])
        #expect(try cache.get(Int.self, for: "answer")?.value == 42)
    }

    @Test("until shutdown, the service leaves the client serving")
    func servesUntilShutdown() async throws {
        let client = QueryClient()
        let group = ServiceGroup(
            configuration: .init(
                services: [QueryClientService(client: client)], gracefulShutdownSignals: [],
                logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        #expect(try await client.fetchQuery("k") { 1 } == 1)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(try client.getQueryData("k", as: Int.self) == 1)
    }
}
