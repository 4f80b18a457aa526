import Foundation
import Loft
import NIOConcurrencyHelpers
import PostgresNIO

/// One upstream call per key for a whole fleet: the instances that share a `PostgresQueryCache`'s table and
/// miss the same key at once elect one of them (a PostgreSQL advisory lock per key) to call the upstream; the
/// others wait for its row and take the value.
///
/// ```swift
/// let fleet = PostgresSingleFlight(cache: shared, freshFor: .seconds(60))
/// let profile = try await client.fetchQuery(["user", 42]) {
///     try await fleet.value(for: ["user", 42], as: Profile.self) { try await upstream.user(42) }
/// }
/// ```
///
/// **Behavior**
/// - A row saved less than `freshFor` ago (by the server's clock, so the instances' clocks do not matter)
///   answers at once.
/// - Otherwise the instance that takes the key's lock calls the upstream, saves the value, then lets the lock
///   go; concurrent callers in one instance share its flight. An instance that finds the lock taken checks
///   the row every `pollInterval` and takes the lock itself if it becomes free without a fresh row (the
///   instance that held it died: its lock went with its connection, or its upstream failed).
/// - An upstream error reaches the callers of the instance that called it; the waiting instances then try
///   themselves.
/// - A fresh row that does not decode as the type asked (a type that changed in a rolling deploy) is a miss:
///   `skippedRows` reports it with the key and both types, the upstream is called, and its value replaces the
///   row.
/// - Every step waits at most the cache's timeout, and a caller waits for another instance at most
///   `maximumWait`: then it throws `CacheError.timedOut`, never hangs. A server that cannot be reached throws
///   `CacheError.unavailable`.
/// - Rows are read and saved on the cache's connection, without blocking a thread; the lock is held on a
///   connection of its own, one per `PostgresSingleFlight`. If that connection is lost while an upstream call
///   runs, another instance may call the upstream for the same key too (at least once, not exactly once).
public final class PostgresSingleFlight: Sendable {
    /// The shared table the values go to.
    public let cache: PostgresQueryCache
    /// How long a saved row answers without a new upstream call.
    public let freshFor: Duration
    /// How often a waiting instance looks at the row and the lock. Default 20 ms.
    public let pollInterval: Duration
    /// How long a caller waits for another instance's upstream call. Default 30 seconds.
    public let maximumWait: Duration
    private let locks: PostgresLink
    private let flights = NIOLockedValueBox<[QueryKey: Task<any Sendable, any Error>]>([:])
    private let skipped = PassthroughSubject<CacheError, Never>()

    /// Every fresh row that was skipped because it did not decode as the type asked for
    /// (`CacheError.undecodableValue`, naming the key, the stored type and the expected one), each time it is
    /// read: the key was fetched from the upstream instead.
    public var skippedRows: AnyPublisher<CacheError, Never> {
        skipped.eraseToAnyPublisher()
    }

    /// Single flight over `cache`'s table.
    public init(
        cache: PostgresQueryCache, freshFor: Duration, pollInterval: Duration = .milliseconds(20),
        maximumWait: Duration = .seconds(30)
    ) {
        self.cache = cache
        self.freshFor = freshFor
        self.pollInterval = pollInterval
        self.maximumWait = maximumWait
        locks = PostgresLink(cache.configuration)
    }

    /// The value of `key`: a fresh row, else what `upstream` returned in whichever instance took the key.
    ///
    /// - Throws: the upstream's error (in the instance that called it), `CacheError.undecodableValue` for a
    ///   fresh row that does not decode as `Value`, `.timedOut`, `.unavailable`.
    public func value<Value: Codable & Sendable>(
        for key: QueryKey, as type: Value.Type = Value.self,
        upstream: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let flight = flights.withLockedValue { flights in
            if let running = flights[key] { return running }
            let task = Task<any Sendable, any Error> { try await self.fly(key, type, upstream) }
            flights[key] = task
            return task
        }
        defer { flights.withLockedValue { if $0[key] == flight { $0[key] = nil } } }
        let value = try await flight.value
        guard let typed = value as? Value else {
            throw CacheError.undecodableValue(
                key: key, storedType: "\(Swift.type(of: value))", expectedType: "\(Value.self)",
                reason: "another caller of this key asked for another type")
        }
        return typed
    }

    private func fly<Value: Codable & Sendable>(
        _ key: QueryKey, _ type: Value.Type, _ upstream: @Sendable () async throws -> Value
    ) async throws -> Value {
        let keyText = try PostgresQueryCache.text(of: key)
        let lock = Self.lockNumber(table: cache.configuration.table, key: keyText)
        let deadline = ContinuousClock.now + maximumWait
        while true {
            if let fresh = try await freshValue(key, keyText, type) { return fresh }
            if try await tryLock(lock) {
                do {
                    let value: Value
                    if let fresh = try await freshValue(key, keyText, type) {
                        value = fresh
                    } else {
                        value = try await upstream()
                        try await cache.saveRenewing(value, for: key)
                    }
                    await unlock(lock)
                    return value
                } catch {
                    await unlock(lock)
                    throw error
                }
            }
            guard ContinuousClock.now < deadline else {
                throw CacheError.timedOut(
                    store: cache.configuration.storeName, operation: "the fleet's fetch of \(key)",
                    seconds: Double(PostgresLink.nanoseconds(maximumWait)) / 1e9)
            }
            try await Task.sleep(for: pollInterval)
        }
    }

    /// The row of `key` if it was saved less than `freshFor` ago by the server's clock and decodes as `Value`
    /// (one that does not is reported on `skippedRows` and is a miss).
    private func freshValue<Value: Decodable>(_ key: QueryKey, _ keyText: String, _ type: Value.Type)
        async throws(CacheError) -> Value?
    {
        let (cache, store, logger) = (cache, cache.store, cache.link.logger)
        let seconds = Double(PostgresLink.nanoseconds(freshFor)) / 1e9
        let statement: PostgresQuery = """
            SELECT value::text, type_name, saved_at, version FROM "\(unescaped: cache.configuration.table)"
            WHERE key = \(keyText) AND updated_at > now() - make_interval(secs => \(seconds))
            """
        let rows = try await cache.link.perform("read of \(key)", failure: { .readFailed(path: store, reason: $0) }) {
            $0.query(statement, logger: logger).map { Array($0.rows) }
        }
        guard let row = rows.first else { return nil }
        do {
            return try cache.decode(row, key: key, as: Value.self).value
        } catch .undecodableValue(let key, let storedType, let expectedType, let reason) {
            // A row of another type is a miss: reported, and replaced by the upstream's value.
            skipped.send(
                .undecodableValue(key: key, storedType: storedType, expectedType: expectedType, reason: reason))
            return nil
        }
    }

    private func tryLock(_ lock: Int64) async throws(CacheError) -> Bool {
        let (store, logger) = (cache.configuration.storeName, locks.logger)
        return try await locks.perform("lock", failure: { .readFailed(path: store, reason: $0) }) {
            $0.query("SELECT pg_try_advisory_lock(\(lock))", logger: logger)
                .flatMapThrowing { try $0.rows.first?.decode(Bool.self) ?? false }
        }
    }

    /// Lets the key's lock go; a lost connection let it go already.
    private func unlock(_ lock: Int64) async {
        let (store, logger) = (cache.configuration.storeName, locks.logger)
        _ = try? await locks.perform("unlock", failure: { .readFailed(path: store, reason: $0) }) {
            $0.query("SELECT pg_advisory_unlock(\(lock))", logger: logger).map { _ in () }
        }
    }

    /// The advisory lock of a key of `table`: FNV-1a of both (two keys that collide share a lock, which only
    /// serialises their fetches).
    static func lockNumber(table: String, key: String) -> Int64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in table.utf8 + [0] + key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }
}
