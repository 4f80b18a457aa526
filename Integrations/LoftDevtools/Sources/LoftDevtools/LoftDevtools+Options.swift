extension LoftDevtools {
    /// Where the page is served, who may open it, and how much history is kept.
    public struct Options: Sendable {
        /// The address to listen on. Default `127.0.0.1`: only this machine can open the page. Another address
        /// needs a `token`.
        public var host: String
        /// The port; 0 (the default) takes a free one (`url` says which).
        public var port: Int
        /// A secret every request must carry (the page's URL holds it, `?token=…`); nil (the default) serves
        /// without one, which only a loopback `host` allows.
        public var token: String?
        /// How many ended fetches are kept per key (default 50).
        public var historyPerKey: Int
        /// How many ended fetches of all keys the timeline keeps (default 500).
        public var timelineLength: Int

        /// Makes options.
        ///
        /// - Parameters:
        ///   - host: the address to listen on (default `127.0.0.1`).
        ///   - port: the port (default 0: a free one).
        ///   - token: the secret requests must carry (default none; required for a non-loopback `host`).
        ///   - historyPerKey: ended fetches kept per key (default 50).
        ///   - timelineLength: ended fetches kept for the timeline (default 500).
        public init(
            host: String = "127.0.0.1", port: Int = 0, token: String? = nil, historyPerKey: Int = 50,
            timelineLength: Int = 500
        ) {
            self.host = host
            self.port = port
            self.token = token
            self.historyPerKey = historyPerKey
            self.timelineLength = timelineLength
        }

        /// Whether `host` is reachable from this machine only.
        var isLoopback: Bool {
            host == "127.0.0.1" || host == "::1" || host == "localhost"
        }
    }
}

/// Why the devtools could not be mounted.
public enum DevtoolsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Serving on `host`, which other machines can reach, needs a token (`Options.token`).
    case tokenRequired(host: String)
    /// The server could not start (the address is taken, or not this machine's).
    case cannotServe(host: String, port: Int, reason: String)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .tokenRequired(let host):
            "Serving the devtools on \(host) lets other machines open them: give a token (Options.token), or serve on 127.0.0.1."
        case .cannotServe(let host, let port, let reason):
            "The devtools could not be served on \(host):\(port): \(reason)."
        }
    }
}
