import Synchronization

/// What a scenario must achieve: a ratio to its baseline, or an absolute time per operation.
enum Target: CustomStringConvertible {
    case ratio(Double)
    case under(nanoseconds: Double)
    case underBytes(Double)
    /// No target: a figure shown for context.
    case none

    var description: String {
        switch self {
        case .ratio(let ratio): "≤ \(format(ratio))×"
        case .under(let nanoseconds): "< \(formatTime(nanoseconds))"
        case .underBytes(let bytes): "< \(formatBytes(bytes))"
        case .none: "—"
        }
    }
}

/// What a row measures: time per operation, or bytes per entry.
enum Unit {
    case time
    case bytes

    func format(_ value: Double) -> String {
        switch self {
        case .time: formatTime(value)
        case .bytes: formatBytes(value)
        }
    }
}

/// One row of the table: the scenario's time per operation beside its baseline's, measured in the same run.
struct Row {
    let scenario: String
    let baselineName: String
    let nanoseconds: Double
    let baselineNanoseconds: Double
    let target: Target
    var unit = Unit.time

    var ratio: Double { nanoseconds / baselineNanoseconds }

    var holds: Bool {
        switch target {
        case .ratio(let limit): ratio <= limit
        case .under(let limit), .underBytes(let limit): nanoseconds < limit
        case .none: true
        }
    }
}

/// How hard to work: `--quick` (CI) runs a tenth of the iterations, to prove the scenarios run.
struct Settings {
    let scale: Int
    let repetitions: Int

    /// A full run's settings: every iteration, seven samples.
    static let full = Settings(scale: 1, repetitions: 7)
    /// A quick run's: a tenth of the iterations, two samples.
    static let quick = Settings(scale: 10, repetitions: 2)

    private init(scale: Int, repetitions: Int) {
        self.scale = scale
        self.repetitions = repetitions
    }

    init(arguments: [String]) {
        self = arguments.contains("--quick") ? .quick : .full
    }

    func iterations(_ full: Int) -> Int { max(1, full / scale) }
}

/// The best (lowest) time per iteration over `repetitions` runs of `body`, in nanoseconds: the least noisy
/// estimate on a shared machine. `body` runs `iterations` operations.
func measure(repetitions: Int, iterations: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var best = Double.infinity
    for _ in 0..<repetitions {
        best = min(best, nanoseconds(clock.measure(body)) / Double(iterations))
    }
    return best
}

/// Each side's best (lowest) figure over `repetitions` turns, the sides taking turns in an order that rotates
/// from one repetition to the next: the machine's speed drifts during a run, and no side may have the quiet
/// part of it.
func bestInTurns(_ repetitions: Int, _ sides: [() -> Double]) -> [Double] {
    var best = [Double](repeating: .infinity, count: sides.count)
    for repetition in 0..<repetitions {
        for offset in sides.indices {
            let index = (repetition + offset) % sides.count
            best[index] = min(best[index], sides[index]())
        }
    }
    return best
}

/// A duration in nanoseconds.
func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

/// A counter that both a scenario and its baseline bump, so that both do the same visible work and the
/// optimiser cannot remove either. Single-threaded use: relaxed load + store is a plain increment.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    @inline(__always)
    func bump() {
        storage.store(storage.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    var value: Int { storage.load(ordering: .relaxed) }
}

/// Keeps a value observable to the optimiser.
@inline(never)
func blackHole<T>(_ value: T) {}

func format(_ value: Double) -> String {
    let rounded = (value * 100).rounded() / 100
    return String(rounded)
}

func formatTime(_ nanoseconds: Double) -> String {
    if nanoseconds >= 1_000_000 { return format(nanoseconds / 1_000_000) + " ms" }
    if nanoseconds >= 1_000 { return format(nanoseconds / 1_000) + " µs" }
    return format(nanoseconds) + " ns"
}

func formatBytes(_ bytes: Double) -> String {
    if bytes >= 1024 { return format(bytes / 1024) + " KiB" }
    return String(Int(bytes.rounded())) + " B"
}

func printTable(_ rows: [Row]) {
    let header = ["scenario", "Loft", "baseline (same run)", "ratio", "target", ""]
    let lines = rows.map { row in
        [
            row.scenario, row.unit.format(row.nanoseconds),
            "\(row.unit.format(row.baselineNanoseconds)) \(row.baselineName)",
            format(row.ratio) + "×", row.target.description, row.holds ? "ok" : "MISSED",
        ]
    }
    let widths = header.indices.map { column in
        ([header] + lines).map { $0[column].count }.max() ?? 0
    }
    func render(_ cells: [String]) -> String {
        "| "
            + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            .joined(separator: " | ") + " |"
    }
    print(render(header))
    print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
    for line in lines { print(render(line)) }
}
