import Foundation

/// A program of this package started for a scenario, and the port it printed as `ready PORT`.
final class Launched {
    let process: Process
    let port: Int
    var pid: Int32 { process.processIdentifier }
    var url: String { "http://127.0.0.1:\(port)" }

    /// Starts `name` (a product of this package, built beside this program) with `arguments`, on core `cpu` alone
    /// when given (through `taskset`, which runs it as the same process); returns once it printed `ready PORT`.
    init(_ name: String, _ arguments: [String], environment: [String: String] = [:], cpu: Int? = nil) throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let program = directory.appendingPathComponent(name)
        process = Process()
        if let cpu {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", "\(cpu)", program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        // Its logs (a failing upstream's fetches, say) are not the benchmark's output.
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") || !text.contains("ready ") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchmarkError.notReady(name, text) }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }),
            let port = Int(line.dropFirst("ready ".count))
        else { throw BenchmarkError.notReady(name, text) }
        self.port = port
        // Whatever it prints later is read and dropped, so that it never blocks on a full pipe.
        output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
    }

    /// The resident size of the process, in bytes (Linux: `/proc/PID/status`).
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// Stops it with SIGTERM and waits for it.
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

enum BenchmarkError: Error, CustomStringConvertible {
    case notReady(String, String)
    case wrk(String)
    case failed(String)

    var description: String {
        switch self {
        case .notReady(let name, let output): "\(name) did not say ready: \(output)"
        case .wrk(let output): "wrk failed or printed no figures: \(output)"
        case .failed(let why): why
        }
    }
}
