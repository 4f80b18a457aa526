import Foundation
import Loft
import PostgresNIO

/// A `QueryCacheType` on PostgreSQL, shared by every instance of a service that points at the same table: a
/// value one instance saved is read by the others.
///
/// ```swift
/// let shared = try PostgresQueryCache(url: "postgres://app@127.0.0.1:5432/services")
/// let client = QueryClient(cache: TwoLevelQueryCache(disk: shared))
/// ```
///
/// Put memory in front of it (`TwoLevelQueryCache`): a read from memory costs nothing, a read from PostgreSQL a
/// round trip.
///
/// **Behavior**
/// - One row per key in `configuration.table` (created when missing, with its schema version in
///   `loft_schema`): the value as JSONB, the Swift type that saved it, the save time and the expiry on the
///   saver's clock. See `CacheTableSchema` for the columns.
/// - Calls block their thread until the server answers, at most `configuration.timeout` (connecting
///   included); the client's write-behind saves run off the caller's thread.
/// - Failures are typed: `CacheError.unavailable` while the server cannot be reached (the cache connects again
///   on the next call, so it recovers by itself), `.timedOut` after the timeout, `.writeFailed` or
///   `.readFailed` with the server's message when it refused a statement (a value PostgreSQL's JSONB cannot
///   hold, such as a string with a NUL character), `.undecodableValue` for a row that no longer decodes as
///   the type asked for. Nothing else is lost: other rows are untouched.
/// - `savedAt(forKey:)` is nil when the row is missing or the server cannot be asked.
public final class PostgresQueryCache: QueryCacheType {
    /// Where the records are, and how long calls wait.
    public let configuration: PostgresCacheConfiguration
    /// Its connection (the fleet's single flight reads and saves on it too).
    let link: PostgresLink

    /// A cache on the table `configuration.table`; it connects when first used.
    public init(_ configuration: PostgresCacheConfiguration) {
        self.configuration = configuration
        link = PostgresLink(configuration)
    }

    /// A cache on the server at `url` (`postgres://user[:password]@host[:port][/database]`).
    ///
    /// - Throws: `CacheError.unavailable` for a URL of another form or a table name that is not an identifier.
    public convenience init(url: String, table: String = "loft_cache", timeout: Duration = .seconds(5))
        throws(CacheError)
    {
        self.init(try PostgresCacheConfiguration(url: url, table: table, timeout: timeout))
    }

    var store: String { configuration.storeName }
    private var table: String { configuration.table }

    /// Stores `value` for `key` (one upsert).
    ///
    /// - Throws: `CacheError.encodingFailed`, `.writeFailed` (the server refused the value), `.unavailable`,
    ///   `.timedOut`.
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) throws(CacheError) {
        let statement = try upsert(value, for: key, savedAt: savedAt, expiresAt: expiresAt, renewing: false)
        let store = store
        try run("save of \(key)", failure: { .writeFailed(path: store, reason: $0) }, statement)
    }

    /// `save`, awaited instead of blocking the thread (for the fleet's single flight), saved now and never
    /// expiring.
    func saveSuspending<Value: Encodable>(_ value: Value, for key: QueryKey) async throws(CacheError) {
        let now = SchedulerInstant(nanosecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1e9))
        let statement = try upsert(value, for: key, savedAt: now, expiresAt: nil, renewing: true)
        let (store, logger) = (store, link.logger)
        try await link.perform("save of \(key)", failure: { .writeFailed(path: store, reason: $0) }) {
            $0.query(statement, logger: logger).map { _ in () }
        }
    }

    /// The statement that stores `value` for `key`, replacing its row.
    ///
    /// A save that is `renewing` (the single flight's, after an upstream call) makes the row fresh
    /// (`updated_at` now). Any other save (a client's write-behind of a value it got, maybe from this very
    /// row) renews `updated_at` only when the value changed, so that instances saving back what they read do
    /// not keep a row fresh for ever; and it leaves a row an invalidation marked stale (`updated_at`
    /// `-infinity`) stale when it saves the same value again.
    private func upsert<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?, renewing: Bool
    ) throws(CacheError) -> PostgresQuery {
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        } catch {
            throw .encodingFailed(key: key, type: "\(Value.self)", reason: "\(error)")
        }
        let (keyText, typeName, bytes) = (try Self.text(of: key), "\(Value.self)", json.utf8.count)
        let (saved, expires) = (savedAt.nanosecondsSinceEpoch, expiresAt?.nanosecondsSinceEpoch)
        let same = "\"\(table)\".value = EXCLUDED.value"
        let (savedAtRule, updatedAtRule) =
            renewing
            ? ("EXCLUDED.saved_at", "now()")
            : (
                "CASE WHEN \(same) AND \"\(table)\".updated_at = '-infinity' THEN \"\(table)\".saved_at "
                    + "ELSE EXCLUDED.saved_at END",
                "CASE WHEN \(same) THEN \"\(table)\".updated_at ELSE now() END"
            )
        return """
            INSERT INTO "\(unescaped: table)" (key, value, type_name, saved_at, expires_at, bytes)
            VALUES (\(keyText), \(json)::jsonb, \(typeName), \(saved), \(expires), \(bytes))
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, type_name = EXCLUDED.type_name,
                saved_at = \(unescaped: savedAtRule), expires_at = EXCLUDED.expires_at, bytes = EXCLUDED.bytes,
                updated_at = \(unescaped: updatedAtRule)
            """
    }

    /// The stored value of `key` with its save time, or nil when there is none.
    ///
    /// - Throws: `CacheError.undecodableValue` when the row no longer decodes as `Value`, `.corruptEntry` for a
    ///   row this cache cannot read, `.readFailed`, `.unavailable`, `.timedOut`.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) throws(CacheError)
        -> CachedValue<Value>?
    {
        let statement: PostgresQuery = """
            SELECT value::text, type_name, saved_at FROM "\(unescaped: table)" WHERE key = \(try Self.text(of: key))
            """
        let store = store
        let rows = try run("read of \(key)", failure: { .readFailed(path: store, reason: $0) }, statement)
        return try rows.first.map { row throws(CacheError) in try decode(row, key: key, as: Value.self) }
    }

    /// A row read as `SELECT value::text, type_name, saved_at`, decoded as `Value`.
    ///
    /// - Throws: `CacheError.undecodableValue` when its value does not decode as `Value`, `.corruptEntry` when
    ///   its columns do not read.
    func decode<Value: Decodable>(_ row: PostgresRow, key: QueryKey, as type: Value.Type) throws(CacheError)
        -> CachedValue<Value>
    {
        let (json, typeName, saved): (String, String, Int64)
        do {
            (json, typeName, saved) = try row.decode((String, String, Int64).self)
        } catch {
            throw .corruptEntry(key: key, path: store, reason: "its columns do not read: \(error)")
        }
        do {
            let value = try JSONDecoder().decode(Value.self, from: Data(json.utf8))
            return CachedValue(value: value, savedAt: SchedulerInstant(nanosecondsSinceEpoch: saved))
        } catch {
            throw .undecodableValue(
                key: key, storedType: typeName, expectedType: "\(Value.self)", reason: CacheError.reason(for: error))
        }
    }

    /// When the value of `key` was saved, or nil when there is none or the server cannot be asked.
    public func savedAt(forKey key: QueryKey) -> SchedulerInstant? {
        guard let keyText = try? Self.text(of: key) else { return nil }
        let statement: PostgresQuery = "SELECT saved_at FROM \"\(unescaped: table)\" WHERE key = \(keyText)"
        let store = store
        guard let rows = try? run("read of \(key)", failure: { .readFailed(path: store, reason: $0) }, statement),
            let saved = try? rows.first?.decode(Int64.self)
        else { return nil }
        return SchedulerInstant(nanosecondsSinceEpoch: saved)
    }

    /// Removes the row of `key`, if any.
    ///
    /// - Throws: `CacheError.writeFailed`, `.unavailable`, `.timedOut`.
    public func remove(for key: QueryKey) throws(CacheError) {
        let statement: PostgresQuery = "DELETE FROM \"\(unescaped: table)\" WHERE key = \(try Self.text(of: key))"
        let store = store
        try run("removal of \(key)", failure: { .writeFailed(path: store, reason: $0) }, statement)
    }

    /// Removes every row of the table (for every instance that shares it).
    ///
    /// - Throws: `CacheError.writeFailed`, `.unavailable`, `.timedOut`.
    public func removeAll() throws(CacheError) {
        let statement: PostgresQuery = "DELETE FROM \"\(unescaped: table)\""
        let store = store
        try run("removal of every row", failure: { .writeFailed(path: store, reason: $0) }, statement)
    }

    @discardableResult
    private func run(_ operation: String, failure: (String) -> CacheError, _ statement: PostgresQuery)
        throws(CacheError) -> [PostgresRow]
    {
        let logger = link.logger
        return try link.run(operation, failure: failure) { connection in
            connection.query(statement, logger: logger).map { Array($0.rows) }
        }
    }

    /// The key as the row's primary key: its JSON, with the names of a dictionary part sorted, so that every
    /// instance writes one key as one text (a dictionary's own order differs from process to process).
    static func text(of key: QueryKey) throws(CacheError) -> String {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(key), as: UTF8.self)
        } catch {
            throw .encodingFailed(key: key, type: "QueryKey", reason: "\(error)")
        }
    }
}
