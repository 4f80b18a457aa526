import Foundation

/// What `--markdown` prints before the table: the document's title, how to make it again, and the run it
/// comes from (machine, toolchain, date, commit), so that `Benchmarks/Results.md` is written by the benchmark
/// and never edited by hand.
func printResultsHeader(_ settings: Settings, arguments: [String]) {
    let info = ProcessInfo.processInfo
    let run = arguments.contains("--quick") ? "a quick run (a tenth of the work)" : "a full run"
    print(
        """
        # Benchmark results

        Written by `swift run -c release Benchmarks --markdown > Benchmarks/Results.md` (\(run)); not edited by
        hand. What each scenario measures and why its baseline is fair: [the scenarios](README.md). Instruction
        counts, which hold on a loaded machine where times do not: [InstructionCounts.md](InstructionCounts.md).

        - Machine: \(architecture), \(info.processorCount) cores, \(info.operatingSystemVersionString)
        - Toolchain: \(firstLine(of: ["swift", "--version"]) ?? "unknown")
        - Date: \(Date().formatted(.iso8601))
        - Commit: \(commit)

        """)
}

/// What `--markdown` prints after the table: the rows that missed their targets, named.
func printResultsFooter(_ rows: [Row]) {
    let missed = rows.filter { !$0.holds }.map(\.scenario)
    print("")
    let summary = missed.isEmpty ? "Every target was met in this run." : "Missed: \(missed.joined(separator: "; "))."
    print(summary)
}

private var architecture: String {
    #if arch(x86_64)
        "x86_64"
    #elseif arch(arm64)
        "arm64"
    #else
        "another architecture"
    #endif
}

/// The commit of the working tree, marked when it has changes (but to the results documents, which this run
/// may be writing).
private var commit: String {
    guard let head = firstLine(of: ["git", "rev-parse", "--short", "HEAD"]) else { return "unknown" }
    let changes = firstLine(of: [
        "git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!Benchmarks/Results.md",
        ":!Benchmarks/InstructionCounts.md",
    ])
    return changes == nil ? head : "\(head) (with uncommitted changes)"
}

/// The first line `command` prints, nil when it fails or prints nothing.
private func firstLine(of command: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        return nil
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
    return line?.isEmpty == false ? line : nil
}
