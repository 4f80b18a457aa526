import PostgresNIO

/// The table of a `PostgresQueryCache`, its version sequence and its schema version, created when missing.
///
/// ```sql
/// CREATE TABLE loft_cache (
///     key        text PRIMARY KEY,  -- the QueryKey as JSON: ["user",42]
///     value      jsonb NOT NULL,    -- the value as JSON
///     type_name  text NOT NULL,     -- the Swift type that saved it
///     saved_at   bigint NOT NULL,   -- nanoseconds since 1970 on the saver's clock
///     expires_at bigint,            -- the same, when the saver's policy expires it
///     bytes      integer NOT NULL,  -- the size of the value's JSON
///     updated_at timestamptz NOT NULL DEFAULT now(),  -- the server's clock
///     version    bigint NOT NULL DEFAULT 0  -- the row's place in the order of the key's changes
/// );
/// CREATE SEQUENCE loft_cache_version;  -- every change to a row takes the next number
/// CREATE INDEX loft_cache_key_pattern ON loft_cache (key text_pattern_ops);  -- rows under a prefix
/// CREATE TABLE loft_schema (name text PRIMARY KEY, version integer NOT NULL);  -- ('loft_cache', 2)
/// ```
///
/// **Behavior**
/// - Instances that start together do not race: the creation runs in a transaction under an advisory lock.
/// - The index serves the `LIKE` of a prefix invalidation (the primary key's index serves it only when the
///   database's collation is `C`).
/// - A table of version 1 (no `version` column) is upgraded in place: the column (0 for every row) and the
///   sequence are added and the recorded version becomes 2. An instance of an older library then refuses
///   the table, as below, instead of writing rows without versions.
/// - A table whose recorded version is newer than this library's is not touched: `prepare` fails with a
///   `Mismatch`, and the cache reports the store as unavailable.
struct CacheTableSchema: Sendable {
    /// The version this library writes and reads.
    static let version = 2
    /// The advisory lock taken while the schema is created (an arbitrary constant: "loft" in ASCII).
    private static let creationLock: Int64 = 0x6C6F_6674

    let table: String

    /// The sequence every change of the table's rows takes its version from.
    var sequence: String { table + "_version" }

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
        let (table, sequence) = (table, sequence)
        let statements: [PostgresQuery] = [
            "BEGIN",
            "SELECT pg_advisory_xact_lock(\(Self.creationLock))",
            "CREATE TABLE IF NOT EXISTS loft_schema (name text PRIMARY KEY, version integer NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS "\(unescaped: table)" (
                key text PRIMARY KEY, value jsonb NOT NULL, type_name text NOT NULL, saved_at bigint NOT NULL,
                expires_at bigint, bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now(),
                version bigint NOT NULL DEFAULT 0)
            """,
            "INSERT INTO loft_schema (name, version) VALUES (\(table), \(Self.version)) ON CONFLICT (name) DO NOTHING",
            // A table of version 1 or this one gets what this version has (a newer one is not touched). The
            // names are plain identifiers.
            """
            DO $$ BEGIN
                IF (SELECT version FROM loft_schema WHERE name = '\(unescaped: table)') <= \(unescaped: String(Self.version)) THEN
                    ALTER TABLE "\(unescaped: table)" ADD COLUMN IF NOT EXISTS version bigint NOT NULL DEFAULT 0;
                    CREATE SEQUENCE IF NOT EXISTS "\(unescaped: sequence)";
                    CREATE INDEX IF NOT EXISTS "\(unescaped: table)_key_pattern" ON "\(unescaped: table)" (key text_pattern_ops);
                    UPDATE loft_schema SET version = \(unescaped: String(Self.version)) WHERE name = '\(unescaped: table)';
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
