import PostgresNIO

/// The table of a `PostgresQueryCache` and its version, created when missing.
///
/// ```sql
/// CREATE TABLE loft_cache (
///     key        text PRIMARY KEY,  -- the QueryKey as JSON: ["user",42]
///     value      jsonb NOT NULL,    -- the value as JSON
///     type_name  text NOT NULL,     -- the Swift type that saved it
///     saved_at   bigint NOT NULL,   -- nanoseconds since 1970 on the saver's clock
///     expires_at bigint,            -- the same, when the saver's policy expires it
///     bytes      integer NOT NULL,  -- the size of the value's JSON
///     updated_at timestamptz NOT NULL DEFAULT now()  -- the server's clock
/// );
/// CREATE INDEX loft_cache_key_pattern ON loft_cache (key text_pattern_ops);  -- rows under a prefix
/// CREATE TABLE loft_schema (name text PRIMARY KEY, version integer NOT NULL);  -- ('loft_cache', 1)
/// ```
///
/// **Behavior**
/// - Instances that start together do not race: the creation runs in a transaction under an advisory lock.
/// - The index serves the `LIKE` of a prefix invalidation (the primary key's index serves it only when the
///   database's collation is `C`); a table of version 1 made before it gets it when an instance prepares it
///   (it is the same version: an older library reads and writes the table as before).
/// - A table whose recorded version is newer than this library's is not touched: `prepare` fails with a
///   `Mismatch`, and the cache reports the store as unavailable.
struct CacheTableSchema: Sendable {
    /// The version this library writes and reads.
    static let version = 1
    /// The advisory lock taken while the schema is created (an arbitrary constant: "loft" in ASCII).
    private static let creationLock: Int64 = 0x6C6F_6674

    let table: String

    /// A table recorded at another version than this library's.
    struct Mismatch: Error, CustomStringConvertible {
        let table: String
        let found: Int

        var description: String {
            "the table \(table) has schema version \(found), this library reads version \(CacheTableSchema.version)"
        }
    }

    /// Creates the table and its version row when missing, then checks the version.
    func prepare(on connection: PostgresConnection, logger: Logger) -> EventLoopFuture<Void> {
        let table = table
        let statements: [PostgresQuery] = [
            "BEGIN",
            "SELECT pg_advisory_xact_lock(\(Self.creationLock))",
            "CREATE TABLE IF NOT EXISTS loft_schema (name text PRIMARY KEY, version integer NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS "\(unescaped: table)" (
                key text PRIMARY KEY, value jsonb NOT NULL, type_name text NOT NULL, saved_at bigint NOT NULL,
                expires_at bigint, bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())
            """,
            "INSERT INTO loft_schema (name, version) VALUES (\(table), \(Self.version)) ON CONFLICT (name) DO NOTHING",
            // Only in a table of this version (a newer one is not touched). The name is a plain identifier.
            """
            DO $$ BEGIN
                IF (SELECT version FROM loft_schema WHERE name = '\(unescaped: table)') = \(unescaped: String(Self.version)) THEN
                    CREATE INDEX IF NOT EXISTS "\(unescaped: table)_key_pattern" ON "\(unescaped: table)" (key text_pattern_ops);
                END IF;
            END $$
            """,
            "COMMIT",
        ]
        var chain = connection.eventLoop.makeSucceededVoidFuture()
        for statement in statements {
            chain = chain.flatMap { connection.query(statement, logger: logger).map { _ in } }
        }
        let check: PostgresQuery = "SELECT version FROM loft_schema WHERE name = \(table)"
        return chain.flatMap { connection.query(check, logger: logger) }
            .flatMapThrowing { result in
                let found = try result.rows.first.map { try $0.decode(Int.self) } ?? Self.version
                guard found == Self.version else { throw Mismatch(table: table, found: found) }
            }
    }
}
