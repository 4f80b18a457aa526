/// How the service runs, from its arguments and environment.
///
/// ```text
/// ItemService --upstream URL [--host 127.0.0.1] [--port 8080] [--store loft|actor] [--budget N|none]
///             [--stale-seconds 5] [--gc-seconds 60] [--telemetry on|off] [--devtools-token T]
///             [--upstream-timeout-ms 1000]
/// DATABASE_URL=postgres://…  shares the cache with the other instances on PostgreSQL (LoftPostgres)
/// DEVTOOLS_TOKEN=…           the devtools' token (default: one made at start, printed)
/// ```
public struct ServiceConfiguration: Sendable {
    /// Which cache serves the routes.
    public enum Store: String, Sendable {
        /// Loft: `fetchQuery`, a shared `Mutation`, the budget, metrics and devtools.
        case loft
        /// The hand-written actor (the benchmarks' baseline).
        case actor
    }

    /// The address to listen on.
    public var host = "127.0.0.1"
    /// 0: a free port (the service prints `ready PORT`).
    public var port = 8080
    /// The upstream's address (`--upstream`, required).
    public var upstream = ""
    /// Which cache serves the routes.
    public var store = Store.loft
    /// The client's memory budget in entries; nil for none.
    public var budget: Int? = 10_000
    /// How long an item is fresh.
    public var staleTime = Duration.seconds(5)
    /// How long an item nobody asked for stays cached.
    public var gcTime = Duration.seconds(60)
    /// Metrics (`/metrics`) and devtools (`/devtools/`).
    public var telemetry = true
    /// The devtools' token (default: one made at start, and printed).
    public var devtoolsToken: String?
    /// How long one upstream request may take.
    public var upstreamTimeout = Duration.seconds(1)
    /// A PostgreSQL URL: the cache is shared by every instance given it.
    public var databaseURL: String?

    /// The arguments, for an error message.
    public static let usage = """
        usage: ItemService --upstream URL [--host H] [--port P] [--store loft|actor] [--budget N|none]
               [--stale-seconds S] [--gc-seconds S] [--telemetry on|off] [--devtools-token T]
               [--upstream-timeout-ms MS]
        """

    /// The defaults (an upstream must still be given).
    public init() {}

    /// The configuration `arguments` (without the program's name) and `environment` describe.
    ///
    /// - Throws: `ConfigurationError` naming the argument that is unknown, lacks its value or has a bad one.
    public init(arguments: [String], environment: [String: String]) throws(ConfigurationError) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst() else { throw .missingValue(flag) }
            switch flag {
            case "--host": host = value
            case "--port": port = try Self.number(flag, value)
            case "--upstream": upstream = value
            case "--store":
                guard let chosen = Store(rawValue: value) else { throw .badValue(flag, value) }
                store = chosen
            case "--budget": budget = value == "none" ? nil : try Self.number(flag, value)
            case "--stale-seconds": staleTime = .seconds(try Self.number(flag, value))
            case "--gc-seconds": gcTime = .seconds(try Self.number(flag, value))
            case "--telemetry":
                guard value == "on" || value == "off" else { throw .badValue(flag, value) }
                telemetry = value == "on"
            case "--devtools-token": devtoolsToken = value
            case "--upstream-timeout-ms": upstreamTimeout = .milliseconds(try Self.number(flag, value))
            default: throw .unknown(flag)
            }
        }
        guard !upstream.isEmpty else { throw .missingValue("--upstream") }
        databaseURL = environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        devtoolsToken = devtoolsToken ?? environment["DEVTOOLS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func number(_ flag: String, _ value: String) throws(ConfigurationError) -> Int {
        guard let number = Int(value), number >= 0 else { throw .badValue(flag, value) }
        return number
    }
}

/// What is wrong with the service's arguments.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknown(String)
    case missingValue(String)
    case badValue(String, String)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .unknown(let flag): "unknown argument \(flag)"
        case .missingValue(let flag): "\(flag) needs a value"
        case .badValue(let flag, let value): "\(flag) does not take \(value)"
        }
    }
}
