import Loft
import Metrics

/// The metrics, by name (each made with the options' prefix and backend, and the dimensions of a use).
///
/// A series (a name with its key and dimensions) is made by the backend once, on its first use, and kept: every
/// later use looks it up here. A backend's `makeCounter` takes its own lock, sorts and checks the labels and
/// looks the series up: asked on every event, it cost each cache read with telemetry on more than the rest of
/// the telemetry together (row (q) of the item service, "telemetry and devtools on"). The series kept are
/// those the backend keeps too (a Prometheus registry forgets none).
struct Instruments: Sendable {
    /// The counters.
    enum CounterName: String {
        case fetches = "fetches_total"
        case retries = "fetch_retries_total"
        case pauses = "fetch_pauses_total"
        case reads = "cache_reads_total"
        case saves = "persistence_saves_total"
        case restores = "persistence_restores_total"
        case persistenceFailures = "persistence_failures_total"
        case collections = "gc_collections_total"
        case evictions = "evictions_total"
        case memoryPressure = "memory_pressure_total"
        case mutations = "mutations_total"
    }

    /// The timers.
    enum TimerName: String {
        case fetchDuration = "fetch_duration_seconds"
        case mutationDuration = "mutation_duration_seconds"
    }

    /// A metric's series: its name, the key's label and the other dimensions.
    private struct Series: Hashable, Sendable {
        let name: String
        let key: String
        let dimensions: [String: String]
    }

    /// The series made so far.
    private struct Made: Sendable {
        var counters: [Series: Counter] = [:]
        var timers: [Series: Timer] = [:]
    }

    let prefix: String
    let factory: any MetricsFactory
    /// The number of entries in the client's cache.
    let entries: Gauge
    private let made = Locked(Made())

    init(_ options: LoftTelemetry.Options) {
        prefix = options.prefix
        factory = options.metrics
        entries = Gauge(label: "\(prefix)_entries", dimensions: [], factory: factory)
    }

    /// The counter of `name` for `key` and `dimensions`, made on first use.
    func counter(_ name: CounterName, key: String, _ dimensions: [String: String] = [:]) -> Counter {
        kept(Series(name: name.rawValue, key: key, dimensions: dimensions), \.counters) {
            Counter(label: "\(prefix)_\(name.rawValue)", dimensions: Self.sorted(key, dimensions), factory: factory)
        }
    }

    /// The timer of `name` for `key` and `dimensions`, made on first use.
    func timer(_ name: TimerName, key: String, _ dimensions: [String: String] = [:]) -> Timer {
        kept(Series(name: name.rawValue, key: key, dimensions: dimensions), \.timers) {
            Timer(label: "\(prefix)_\(name.rawValue)", dimensions: Self.sorted(key, dimensions), factory: factory)
        }
    }

    /// The metric of `series` in `kind`, made by `make` (outside the lock: the backend takes its own) if there
    /// is none yet; of two uses that race to make it, both get the first one kept.
    private func kept<Metric>(
        _ series: Series, _ kind: WritableKeyPath<Made, [Series: Metric]>, make: () -> Metric
    ) -> Metric {
        if let metric = made.withLock({ $0[keyPath: kind][series] }) { return metric }
        let metric = make()
        return made.withLock { made in
            if let first = made[keyPath: kind][series] { return first }
            made[keyPath: kind][series] = metric
            return metric
        }
    }

    /// The key first, then the others by name: one order, so that a backend sees one series per values.
    private static func sorted(_ key: String, _ dimensions: [String: String]) -> [(String, String)] {
        [("key", key)] + dimensions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
