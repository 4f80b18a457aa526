import Foundation

// Runs every scenario of the performance goals and prints one table: each figure beside a baseline measured
// in the same run, so the ratio holds on a noisy machine. Build in release mode:
//
//     swift run -c release Benchmarks            # full run
//     swift run -c release Benchmarks --quick    # a tenth of the work, but (o) and (p) (CI proves they run)
//     swift run -c release Benchmarks --check    # exit 1 when a target is missed
//     swift run -c release Benchmarks --only b   # scenario (b); `--only abd` runs (a), (b) and (d)
//     swift run -c release Benchmarks --markdown > Benchmarks/Results.md   # the results document
//     bash .ci/instruction-counts                 # instructions of the most repeated operations (see README)

let arguments = CommandLine.arguments
if let flag = arguments.firstIndex(of: "--memory-probe"), arguments.indices.contains(flag + 1),
    let count = Int(arguments[flag + 1])
{
    memoryProbe(count: count)
    exit(0)
}
if let flag = arguments.firstIndex(of: "--probe"), arguments.indices.contains(flag + 1) {
    instructionProbe(arguments[flag + 1])
    exit(0)
}
let settings = Settings(arguments: arguments)
let scenarios: [(key: String, run: (Settings) -> [Row])] = [
    ("a", { [fanOutScenario($0)] }), ("b", { [chainScenario($0)] }),
    ("c", { [subscribeCancelScenario($0)] }),
    ("d", { [cacheHitScenario($0)] }), ("e", { [dedupeScenario($0)] }),
    ("f", { [fanOutQueryScenario($0, through: .valuePublisher), fanOutQueryScenario($0, through: .statePublisher)] }),
    ("g", invalidationScenario), ("h", persistenceScenario),
    ("i", memoryScenario), ("j", pagesScenario), ("k", { [focusScenario($0)] }),
    ("l", { [stateReadScenario($0)] }), ("m", { [observationScenario($0)] }), ("n", writeBehindScenario),
    // (o) and (p) take their full measurement in a quick run too: it lasts under half a second, and a tenth of
    // it is short enough to fall inside one of the pool's passing modes (see `mutationRoundTripScenario`).
    ("o", { _ in mutationRoundTripScenario(.full) }), ("p", { _ in [mutationScopeScenario(.full)] }),
    ("u", freshHitScenario),
]
let markdown = arguments.contains("--markdown")
if markdown { printResultsHeader(settings, arguments: arguments) }
let only = arguments.firstIndex(of: "--only").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
var rows: [Row] = []
let order = arguments.contains("--reverse") ? scenarios.reversed() : scenarios
for scenario in order where only.map({ $0.contains(scenario.key) }) ?? true {
    rows.append(contentsOf: scenario.run(settings))
}
printTable(rows)
if markdown { printResultsFooter(rows) }
if arguments.contains("--check"), rows.contains(where: { !$0.holds }) {
    print("A target was missed.")
    exit(1)
}
