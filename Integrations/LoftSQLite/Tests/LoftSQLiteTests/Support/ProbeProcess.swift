import Foundation
import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends SIGKILL to `pid`.
private func killNow(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}

/// The add-on's probe executable (`LoftSQLiteProbe`), started by a test: its output is read line by line as it
/// runs, and a watchdog kills it if it outlives `limit` (a hung probe fails its test instead of hanging CI).
final class ProbeProcess: Sendable {
    private struct Output: Sendable {
        var lines: [String] = []
        var partial = Data()
        var isClosed = false
        var waiter: (predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)?
    }

    private let process: Process
    private let input: Pipe
    private let output = Locked(Output())

    /// Starts the probe with `arguments`, as `user` when given.
    init(_ arguments: [String], limit: DispatchTimeInterval = .seconds(60)) throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map {
            $0.appendingPathComponent("LoftSQLiteProbe")
        }
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else {
            throw CacheError.readFailed(path: directory.path, reason: "LoftSQLiteProbe is not built beside the tests")
        }
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        input = Pipe()
        let pipe = Pipe()
        process.standardInput = input
        process.standardOutput = pipe
        let output = output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            let resumed = output.withLock { state -> [(CheckedContinuation<String?, Never>, String?)] in
                if data.isEmpty { state.isClosed = true } else { state.partial.append(data) }
                while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                    state.lines.append(String(decoding: state.partial[..<newline], as: UTF8.self))
                    state.partial = Data(state.partial[(newline + 1)...])
                }
                return Self.answer(&state).map { [$0] } ?? []
            }
            if data.isEmpty { handle.readabilityHandler = nil }
            for (continuation, line) in resumed { continuation.resume(returning: line) }
        }
        try process.run()
        let process = process
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) { [weak process] in
            if let process, process.isRunning { killNow(process.processIdentifier) }
        }
    }

    /// Every line printed so far.
    var lines: [String] { output.withLock { $0.lines } }

    /// The first line (printed so far or later) that `predicate` accepts; nil when the probe ends first.
    func line(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            let answer = output.withLock { state -> (CheckedContinuation<String?, Never>, String?)? in
                state.waiter = (predicate, continuation)
                return Self.answer(&state)
            }
            if let (continuation, line) = answer { continuation.resume(returning: line) }
        }
    }

    /// Kills the probe with SIGKILL (no chance to finish what it writes) and waits for it to end.
    func kill() {
        killNow(process.processIdentifier)
        process.waitUntilExit()
    }

    /// Closes the probe's standard input (what `hold-lock` waits for) and waits for it to end.
    func finish() -> Int32 {
        input.fileHandleForWriting.closeFile()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The waiter's line, when one has come or the output closed; the waiter is then taken.
    private static func answer(_ state: inout Output) -> (CheckedContinuation<String?, Never>, String?)? {
        guard let waiter = state.waiter else { return nil }
        if let line = state.lines.first(where: waiter.predicate) {
            state.waiter = nil
            return (waiter.continuation, line)
        }
        guard state.isClosed else { return nil }
        state.waiter = nil
        return (waiter.continuation, nil)
    }
}
