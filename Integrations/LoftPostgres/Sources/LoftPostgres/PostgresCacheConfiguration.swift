import Loft
import PostgresNIO

/// Where a `PostgresQueryCache` keeps its records, and how long it waits for the server.
///
/// ```swift
/// let configuration = try PostgresCacheConfiguration(url: "postgres://app@127.0.0.1:5432/services")
/// ```
///
/// **Behavior**
/// - Every call waits at most `timeout` for the server (connecting included); then it throws
///   `CacheError.timedOut` and drops its connection.
/// - `table` names the table of records; its schema version lives in `loft_schema` beside it.
public struct PostgresCacheConfiguration: Sendable, Equatable {
    /// The server's host name or address. Default `127.0.0.1`.
    public var host: String
    /// The server's port. Default 5432.
    public var port: Int
    /// The role the cache connects as.
    public var username: String
    /// The role's password, if the server asks for one. Default none.
    public var password: String?
    /// The database. Default: the server's default for the role (its name).
    public var database: String?
    /// The table of records: letters, digits and `_`, starting with a letter or `_`, at most 63 characters.
    /// Default `loft_cache`.
    public var table: String
    /// How long a call waits for the server, connecting included. Default 5 seconds.
    public var timeout: Duration

    /// A configuration from its parts.
    ///
    /// - Throws: `CacheError.unavailable` when `table` is not a plain identifier (it is written into SQL).
    public init(
        host: String = "127.0.0.1", port: Int = 5432, username: String, password: String? = nil,
        database: String? = nil, table: String = "loft_cache", timeout: Duration = .seconds(5)
    ) throws(CacheError) {
        guard Self.isPlainIdentifier(table) else {
            throw .unavailable(
                store: "postgres://\(host):\(port)", reason: "the table name \(table) is not a plain identifier")
        }
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.table = table
        self.timeout = timeout
    }

    /// A configuration from a URL `postgres://user[:password]@host[:port][/database]` (`postgresql://` too).
    ///
    /// - Throws: `CacheError.unavailable` for a URL of another form.
    public init(url: String, table: String = "loft_cache", timeout: Duration = .seconds(5)) throws(CacheError) {
        guard let parts = ConnectionURL(url) else {
            throw .unavailable(
                store: url, reason: "not a URL of the form postgres://user[:password]@host[:port][/database]")
        }
        try self.init(
            host: parts.host, port: parts.port, username: parts.username, password: parts.password,
            database: parts.database, table: table, timeout: timeout)
    }

    /// How postgres-nio connects to this server (loopback, no TLS), with the timeout as its connect timeout: for
    /// a connection of your own beside the cache's (a test's, a tool's).
    public var connection: PostgresConnection.Configuration {
        PostgresLink.settings(self)
    }

    /// How errors name this store: its address and table, never its password.
    public var storeName: String {
        "postgres://\(host):\(port)/\(database ?? username)#\(table)"
    }

    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 63 else { return false }
        let isLetter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" }
        return isLetter(first) && name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }
}
