import Foundation
import Loft
import PostgresNIO

/// A network cache (`AsyncQueryCacheType`) on PostgreSQL, shared by every instance of a service that points
/// at the same table: a value one instance saved is read by the others, and every change of a row reaches
/// them, numbered, so that they all apply a key's changes in one order.
///
/// ```swift
/// let shared = try PostgresQueryCache(url: "postgres://app@127.0.0.1:5432/services")
/// let client = QueryClient(cache: shared, cacheConfig: QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
/// ```
///
/// **Behavior**
/// - One row per key in `configuration.table` (created when missing, with its schema version in
///   `loft_schema`): the value as JSONB, the Swift type that saved it, the save time and the expiry on the
///   saver's clock, and the row's version. See `CacheTableSchema` for the columns.
/// - Every call is awaited: no thread waits for the server. A call waits at most `configuration.timeout`
///   (connecting included), then throws `CacheError.timedOut`; while the server hangs, only the calls that
///   need it wait.
/// - A save that changes a row's value takes the next number of the table's sequence as the row's version
///   (drawn once the row is locked, so a key's versions grow in the order its saves commit) and, in the
///   same statement, notifies the channel `<table>_changes` with the version and the value (or without the
///   value when it does not fit in a notification): a `PostgresFleetLink` applies it to the other instances'
///   clients, and to this one's, only where it is newer than what they hold. A save of the value the row
///   already holds changes no version and notifies no one (it renews the save time).
/// - A read gives the row's version with its value (`CachedValue.version`): the client keeps it with the
///   data, so a change older than what it read is not applied after it.
/// - `remove(for:)` and `removeAll()` delete rows and notify a removal with a new version.
/// - Failures are typed: `CacheError.unavailable` while the server cannot be reached (the cache connects again
///   on the next call, so it recovers by itself), `.timedOut` after the timeout, `.writeFailed` or
///   `.readFailed` with the server's message when it refused a statement (a value PostgreSQL's JSONB cannot
///   hold, such as a string with a NUL character), `.undecodableValue` for a row that no longer decodes as
///   the type asked for (the client then fetches, and its value replaces the row). Nothing else is lost:
///   other rows are untouched.
public final class PostgresQueryCache: AsyncQueryCacheType {
    /// Where the records are, and how long calls wait.
    public let configuration: PostgresCacheConfiguration
    /// Its connection (the fleet's single flight reads and saves on it too, and the fleet link sends on it).
    let link: PostgresLink
    /// This instance, in the notifications its changes send.
    let origin = UUID()

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
    /// The channel every change of the table is notified on.
    var channel: String { configuration.table + "_changes" }
    /// The sequence the rows' versions come from.
    var sequence: String { CacheTableSchema(table: configuration.table).sequence }

    /// Stores `value` for `key` (one upsert, notified with its version when the value changed).
    ///
    /// - Throws: `CacheError.encodingFailed`, `.writeFailed` (the server refused the value), `.unavailable`,
    ///   `.timedOut`.
    public func save<Value: Encodable>(
        _ value: Value, for key: QueryKey, savedAt: SchedulerInstant, expiresAt: SchedulerInstant?
    ) async throws(CacheError) {
        let statement = try upsert(value, for: key, savedAt: savedAt, expiresAt: expiresAt, renewing: false)
        try await perform("save of \(key)", failure: { .writeFailed(path: $0, reason: $1) }, statement)
    }

    /// `save`, saved now and never expiring, making the row fresh for a single flight whatever its value.
    func saveRenewing<Value: Encodable>(_ value: Value, for key: QueryKey) async throws(CacheError) {
        let now = SchedulerInstant(nanosecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1e9))
        let statement = try upsert(value, for: key, savedAt: now, expiresAt: nil, renewing: true)
        try await perform("save of \(key)", failure: { .writeFailed(path: $0, reason: $1) }, statement)
    }

    /// The statement that stores `value` for `key`, replacing its row, and notifies the change.
    ///
    /// The version: a new row takes the sequence's next number; a row whose value changes takes the next
    /// number once it is locked (the `SET` runs after the lock, so a key's versions follow its commits); a
    /// row whose value stays keeps its version, and nothing is notified (the `old` version read before is the
    /// one returned). A save that is `renewing` (the single flight's, after an upstream call) makes the row
    /// fresh (`updated_at` now). Any other save renews `updated_at` only when the value changed, so that
    /// instances saving what they got from this very row do not keep it fresh for ever; and it leaves a row
    /// an invalidation marked stale (`updated_at` `-infinity`) stale when it saves the same value again.
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
        let (head, tail) = try FleetMessage(
            origin: origin, change: SharedChange(.setData(json: json), [.exact(key)]), isRowWrite: true
        ).parts()
        let row = "\"\(table)\""
        let next = "nextval('\"\(sequence)\"')"
        let same = "\(row).value = EXCLUDED.value"
        let (savedAtRule, updatedAtRule) =
            renewing
            ? ("EXCLUDED.saved_at", "now()")
            : (
                "CASE WHEN \(same) AND \(row).updated_at = '-infinity' THEN \(row).saved_at ELSE EXCLUDED.saved_at END",
                "CASE WHEN \(same) THEN \(row).updated_at ELSE now() END"
            )
        return """
            WITH old AS (SELECT version FROM \(unescaped: row) WHERE key = \(keyText)),
            written AS (
                INSERT INTO \(unescaped: row) (key, value, type_name, saved_at, expires_at, bytes, version)
                VALUES (\(keyText), \(json)::jsonb, \(typeName), \(saved), \(expires), \(bytes), \(unescaped: next))
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, type_name = EXCLUDED.type_name,
                    saved_at = \(unescaped: savedAtRule), expires_at = EXCLUDED.expires_at, bytes = EXCLUDED.bytes,
                    updated_at = \(unescaped: updatedAtRule),
                    version = CASE WHEN \(unescaped: same) THEN \(unescaped: row).version ELSE \(unescaped: next) END
                RETURNING version)
            SELECT pg_notify(\(channel), \(head) || version::text || \(tail)) FROM written
            WHERE version IS DISTINCT FROM (SELECT version FROM old)
            """
    }

    /// The stored value of `key` with its save time and version, or nil when there is none.
    ///
    /// - Throws: `CacheError.undecodableValue` when the row no longer decodes as `Value`, `.corruptEntry` for a
    ///   row this cache cannot read, `.readFailed`, `.unavailable`, `.timedOut`.
    public func get<Value: Decodable>(_ type: Value.Type, for key: QueryKey) async throws(CacheError)
        -> CachedValue<Value>?
    {
        let statement: PostgresQuery = """
            SELECT value::text, type_name, saved_at, version FROM "\(unescaped: table)"
            WHERE key = \(try Self.text(of: key))
            """
        let rows = try await perform("read of \(key)", failure: { .readFailed(path: $0, reason: $1) }, statement)
        return try rows.first.map { row throws(CacheError) in try decode(row, key: key, as: Value.self) }
    }

    /// A row read as `SELECT value::text, type_name, saved_at, version`, decoded as `Value`.
    ///
    /// - Throws: `CacheError.undecodableValue` when its value does not decode as `Value`, `.corruptEntry` when
    ///   its columns do not read.
    func decode<Value: Decodable>(_ row: PostgresRow, key: QueryKey, as type: Value.Type) throws(CacheError)
        -> CachedValue<Value>
    {
        let (json, typeName, saved, version): (String, String, Int64, Int64)
        do {
            (json, typeName, saved, version) = try row.decode((String, String, Int64, Int64).self)
        } catch {
            throw .corruptEntry(key: key, path: store, reason: "its columns do not read: \(error)")
        }
        do {
            let value = try JSONDecoder().decode(Value.self, from: Data(json.utf8))
            return CachedValue(value: value, savedAt: SchedulerInstant(nanosecondsSinceEpoch: saved), version: version)
        } catch {
            throw .undecodableValue(
                key: key, storedType: typeName, expectedType: "\(Value.self)", reason: CacheError.reason(for: error))
        }
    }

    /// The row of `key` as its value's JSON and version, or nil when there is none (for a receiver of a value
    /// too large to travel in its notification).
    func json(of key: QueryKey) async throws(CacheError) -> (json: String, version: Int64)? {
        let statement: PostgresQuery = """
            SELECT value::text, version FROM "\(unescaped: table)" WHERE key = \(try Self.text(of: key))
            """
        let rows = try await perform("read of \(key)", failure: { .readFailed(path: $0, reason: $1) }, statement)
        guard let row = rows.first else { return nil }
        do {
            return try row.decode((String, Int64).self)
        } catch {
            throw .corruptEntry(key: key, path: store, reason: "its columns do not read: \(error)")
        }
    }

    /// Removes the row of `key`, if any, and notifies the removal with a new version.
    ///
    /// - Throws: `CacheError.writeFailed`, `.unavailable`, `.timedOut`.
    public func remove(for key: QueryKey) async throws(CacheError) {
        try await removeRows(SharedChange(.remove, [.exact(key)]), "DELETE FROM \"\(table)\" WHERE key = ", key)
    }

    /// Removes every row of the table (for every instance that shares it), and notifies the removal.
    ///
    /// - Throws: `CacheError.writeFailed`, `.unavailable`, `.timedOut`.
    public func removeAll() async throws(CacheError) {
        try await removeRows(SharedChange(.remove, [.prefix([])]), "DELETE FROM \"\(table)\"", nil)
    }

    /// Drops the table, its version sequence and its schema row: for a throwaway table (a demo's, a test's).
    /// Every instance on the table loses it; the next call of any creates it anew.
    ///
    /// - Throws: `CacheError.writeFailed`, `.unavailable`, `.timedOut`.
    public func dropTable() async throws(CacheError) {
        let (row, sequence) = ("\"\(table)\"", "\"\(sequence)\"")
        for statement: PostgresQuery in [
            "DROP TABLE IF EXISTS \(unescaped: row)", "DROP SEQUENCE IF EXISTS \(unescaped: sequence)",
            "DELETE FROM loft_schema WHERE name = \(table)",
        ] {
            try await perform("drop of \(table)", failure: { .writeFailed(path: $0, reason: $1) }, statement)
        }
    }

    private func removeRows(_ change: SharedChange, _ delete: String, _ key: QueryKey?) async throws(CacheError) {
        let (head, tail) = try FleetMessage(origin: origin, change: change).parts()
        let next = "nextval('\"\(sequence)\"')"
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 128, interpolationCount: 5)
        sql.appendLiteral("WITH gone AS (")
        sql.appendInterpolation(unescaped: delete)
        if let key { sql.appendInterpolation(try Self.text(of: key)) }
        sql.appendLiteral(") SELECT pg_notify(")
        sql.appendInterpolation(channel)
        sql.appendLiteral(", ")
        sql.appendInterpolation(head)
        sql.appendLiteral(" || \(next)::text || ")
        sql.appendInterpolation(tail)
        sql.appendLiteral(")")
        let name = key.map { "removal of \($0)" } ?? "removal of every row"
        try await perform(
            name, failure: { .writeFailed(path: $0, reason: $1) }, PostgresQuery(stringInterpolation: sql))
    }

    /// Runs `statement` on the cache's connection and returns its rows.
    @discardableResult
    func perform(
        _ operation: String, failure: @escaping @Sendable (String, String) -> CacheError, _ statement: PostgresQuery
    ) async throws(CacheError) -> [PostgresRow] {
        let (logger, store) = (link.logger, store)
        return try await link.perform(operation, failure: { failure(store, $0) }) { connection in
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
