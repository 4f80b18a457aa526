import Foundation

// The item service's benchmarks: Loft's store against the hand-written actor in the same service, in one sitting.
// Build in release mode, then run:
//
//     swift build -c release && .build/release/ItemServiceBenchmarks            # a full sitting
//     .build/release/ItemServiceBenchmarks --quick                             # a short one (proves they run)
//     .build/release/ItemServiceBenchmarks --only qr --markdown Results.md     # some, written to a file
//
// It starts the upstream and the service as processes of their own (built beside it), loads them with wrk
// (Debian's package) and a client of its own, and prints a table; --check exits 1 when a target is missed.

let arguments = CommandLine.arguments
let settings = Settings(isQuick: arguments.contains("--quick"))
let only = arguments.firstIndex(of: "--only").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
let output = arguments.firstIndex(of: "--markdown").flatMap {
    arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
}
// 1,000 connections at most: 10,000 connections opened at once overflow the server's accept backlog, and the
// requests would then wait on the kernel's connection retries rather than on the service.
let client = BenchmarkClient(connections: min(settings.dedupeCallers, 1_000))
let scenarios: [(key: Character, run: (Settings, BenchmarkClient) async throws -> [Row])] = [
    ("q", loadScenario), ("r", dedupeScenario), ("s", churnScenario), ("t", outageScenario),
]
var rows: [Row] = []
do {
    for scenario in scenarios where only.map({ $0.contains(scenario.key) }) ?? true {
        rows += try await scenario.run(settings, client)
    }
} catch {
    print("benchmark failed: \(error)")
    await client.shutdown()
    exit(1)
}
await client.shutdown()
let result = table(rows)
print(result)
if let output {
    let header = """
        # Item service benchmarks

        Loft's store against the hand-written actor in the same service, in one sitting
        (`ItemServiceBenchmarks\(settings.isQuick ? " --quick" : "")`, release build), on \(ProcessInfo.processInfo.activeProcessorCount) cores
        (\(ProcessInfo.processInfo.operatingSystemVersionString)), \(Date().formatted(date: .abbreviated, time: .omitted)).
        wrk, the upstream and the service share the machine. Written by the benchmark; see the README for what each row means.


        """
    try header.appending(result + "\n").write(toFile: output, atomically: true, encoding: .utf8)
}
if arguments.contains("--check"), rows.contains(where: { !$0.holds }) {
    print("A target was missed.")
    exit(1)
}
