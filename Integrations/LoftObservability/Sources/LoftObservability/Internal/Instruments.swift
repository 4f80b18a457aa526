import Metrics

/// The metrics, by name (each made with the options' prefix and backend, and the dimensions of a use).
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

    let prefix: String
    let factory: any MetricsFactory
    /// The number of entries in the client's cache.
    let entries: Gauge

    init(_ options: LoftTelemetry.Options) {
        prefix = options.prefix
        factory = options.metrics
        entries = Gauge(label: "\(prefix)_entries", dimensions: [], factory: factory)
    }

    func counter(_ name: CounterName, key: String, _ dimensions: [String: String] = [:]) -> Counter {
        Counter(label: "\(prefix)_\(name.rawValue)", dimensions: Self.sorted(key, dimensions), factory: factory)
    }

    func timer(_ name: TimerName, key: String, _ dimensions: [String: String] = [:]) -> Timer {
        Timer(label: "\(prefix)_\(name.rawValue)", dimensions: Self.sorted(key, dimensions), factory: factory)
    }

    /// The key first, then the others by name: one order, so that a backend sees one series per values.
    private static func sorted(_ key: String, _ dimensions: [String: String]) -> [(String, String)] {
        [("key", key)] + dimensions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
