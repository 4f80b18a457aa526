import Foundation

/// One line of the results: a figure of Loft's service beside its baseline, measured in the same sitting.
struct Row {
    let scenario: String
    let figure: String
    let baseline: String
    /// The figure's ratio to the baseline (nil where the target is not a ratio).
    let ratio: Double?
    let target: String
    let holds: Bool

    static func ratio(
        _ scenario: String, _ value: Double, _ baseline: Double, unit: (Double) -> String, baselineName: String,
        atLeast: Double? = nil, atMost: Double? = nil
    ) -> Row {
        let ratio = baseline > 0 ? value / baseline : 0
        let holds = (atLeast.map { ratio >= $0 } ?? true) && (atMost.map { ratio <= $0 } ?? true)
        let target = atLeast.map { "≥ \(format($0))×" } ?? atMost.map { "≤ \(format($0))×" } ?? "—"
        return Row(
            scenario: scenario, figure: unit(value), baseline: "\(unit(baseline)) \(baselineName)", ratio: ratio,
            target: target, holds: holds)
    }
}

func format(_ value: Double) -> String {
    String(format: value < 10 ? "%.2f" : "%.0f", value)
}

func requestsPerSecond(_ value: Double) -> String { "\(format(value)) req/s" }
func milliseconds(_ seconds: Double) -> String { "\(format(seconds * 1_000)) ms" }
func megabytes(_ bytes: Double) -> String { "\(format(bytes / 1_048_576)) MiB" }

/// The rows as a Markdown table.
func table(_ rows: [Row]) -> String {
    var lines = ["| scenario | Loft | baseline (same sitting) | ratio | target | |", "|---|---|---|---|---|---|"]
    for row in rows {
        let ratio = row.ratio.map { "\(format($0))×" } ?? "—"
        lines.append(
            "| \(row.scenario) | \(row.figure) | \(row.baseline) | \(ratio) | \(row.target) | \(row.holds ? "ok" : "MISSED") |"
        )
    }
    return lines.joined(separator: "\n")
}
