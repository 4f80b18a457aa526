import Loft
import Logging
import Metrics
import Tracing

extension LoftTelemetry {
    /// How a key is named in metric dimensions, span attributes and log metadata.
    public enum KeyLabel: Sendable, Hashable {
        /// The key's first part only (`users` for `["users", 42]`): the default, since later parts can be
        /// identifiers or filters a team may not want in its telemetry, and since each distinct value of a
        /// dimension is a time series.
        case firstPart
        /// The whole key (`users/42`).
        case fullKey

        /// The label of `key`.
        func label(of key: QueryKey) -> String {
            switch self {
            case .firstPart: key.parts.first?.description ?? ""
            case .fullKey: key.description
            }
        }
    }

    /// Where telemetry goes and how keys are named.
    public struct Options: Sendable {
        /// How keys are named. Default `.firstPart`.
        public var keyLabel: KeyLabel
        /// The logger of the client's failures (default: a logger labelled `loft`, on the bootstrapped
        /// `LoggingSystem`).
        public var logger: Logger
        /// The metrics backend (default: the bootstrapped `MetricsSystem.factory`).
        public var metrics: any MetricsFactory
        /// The tracer of fetch and mutation spans (default: the bootstrapped `InstrumentationSystem.tracer`).
        public var tracer: any Tracer
        /// The start of every metric's name (default `loft`: `loft_fetches_total`).
        public var prefix: String

        /// Makes options; each default is the process's bootstrapped backend.
        ///
        /// - Parameters:
        ///   - keyLabel: how keys are named (default: their first part).
        ///   - logger: the logger (default: `Logger(label: "loft")`).
        ///   - metrics: the metrics backend (default: `MetricsSystem.factory`).
        ///   - tracer: the tracer (default: `InstrumentationSystem.tracer`).
        ///   - prefix: the start of metric names (default `loft`).
        public init(
            keyLabel: KeyLabel = .firstPart, logger: Logger = Logger(label: "loft"),
            metrics: any MetricsFactory = MetricsSystem.factory, tracer: any Tracer = InstrumentationSystem.tracer,
            prefix: String = "loft"
        ) {
            self.keyLabel = keyLabel
            self.logger = logger
            self.metrics = metrics
            self.tracer = tracer
            self.prefix = prefix
        }
    }
}
