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

    /// A series of `cache_reads_total`: the key's label, and whether the reads it counts are hits.
    private struct ReadSeries: Hashable, Sendable {
        let key: String
        let isHit: Bool
    }

    let prefix: String
    let factory: any MetricsFactory
    /// The number of entries in the client's cache.
    let entries: Gauge
    /// The series made so far, each kind behind a lock of its own.
    private let counters = Locked<[Series: Counter]>([:])
    private let timers = Locked<[Series: Timer]>([:])
    /// The counters of `.reads`, by the key's label and the result alone (`reads(key:isHit:)`).
    private let reads = Locked<[ReadSeries: Counter]>([:])

    init(_ options: LoftTelemetry.Options) {
        prefix = options.prefix
        factory = options.metrics
        entries = Gauge(label: "\(prefix)_entries", dimensions: [], factory: factory)
    }

    /// The counter of `name` for `key` and `dimensions`, made on first use (`.reads`: `reads(key:isHit:)`).
    func counter(_ name: CounterName, key: String, _ dimensions: [String: String] = [:]) -> Counter {
        kept(Series(name: name.rawValue, key: key, dimensions: dimensions), in: counters) {
            makeCounter(name, key: key, dimensions)
        }
    }

    /// The counter of `key`'s cache reads that are hits (`isHit`) or misses, made on first use: `.reads` with a
    /// `result` of "hit" or "miss". Every cache hit counts into one, so it is kept by the label and the result
    /// alone: found as a `Series` (a dimensions' dictionary made and hashed at each read, through a key path),
    /// counting took almost half as much again as the rest of the hit (row (q) of the item service, "telemetry
    /// and devtools on").
    func reads(key: String, isHit: Bool) -> Counter {
        kept(ReadSeries(key: key, isHit: isHit), in: reads) {
            makeCounter(.reads, key: key, ["result": isHit ? "hit" : "miss"])
        }
    }

    /// The timer of `name` for `key` and `dimensions`, made on first use.
    func timer(_ name: TimerName, key: String, _ dimensions: [String: String] = [:]) -> Timer {
        kept(Series(name: name.rawValue, key: key, dimensions: dimensions), in: timers) {
            Timer(label: "\(prefix)_\(name.rawValue)", dimensions: Self.sorted(key, dimensions), factory: factory)
        }
    }

    /// A new counter of `name` for `key` and `dimensions`, from the backend.
    private func makeCounter(_ name: CounterName, key: String, _ dimensions: [String: String]) -> Counter {
        Counter(label: "\(prefix)_\(name.rawValue)", dimensions: Self.sorted(key, dimensions), factory: factory)
    }

    /// The metric of `series` in `table`, made by `make` (outside the lock: the backend takes its own) if there
    /// is none yet; of two uses that race to make it, both get the first one kept.
    private func kept<Name: Hashable, Metric>(
        _ series: Name, in table: Locked<[Name: Metric]>, make: () -> Metric
    ) -> Metric {
        if let metric = table.withLock({ $0[series] }) { return metric }
        let metric = make()
        return table.withLock { made in
            if let first = made[series] { return first }
            made[series] = metric
            return metric
        }
    }

    /// The key first, then the others by name: one order, so that a backend sees one series per values.
    private static func sorted(_ key: String, _ dimensions: [String: String]) -> [(String, String)] {
        [("key", key)] + dimensions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
