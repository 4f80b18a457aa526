import Foundation
import NIOConcurrencyHelpers

/// The instances of the demo service, each a process of this executable (`instance URL TABLE`), driven
/// through their standard input and output.
final class Fleet: Sendable {
    /// One instance's process and what it printed.
    final class Member: Sendable {
        let process: Process
        private let input: FileHandle
        private let lines = NIOLockedValueBox<[String]>([])
        private let arrived = NIOLockedValueBox<[CheckedContinuation<Void, Never>]>([])

        init(executable: URL, url: String, table: String) throws {
            process = Process()
            process.executableURL = executable
            process.arguments = ["instance", url, table]
            let (stdin, stdout) = (Pipe(), Pipe())
            process.standardInput = stdin
            process.standardOutput = stdout
            input = stdin.fileHandleForWriting
            try process.run()
            // Read on a thread of its own, blocking: the process may be killed at any moment.
            let output = stdout.fileHandleForReading
            Thread.detachNewThread { [weak self] in
                var pending = ""
                while true {
                    let data = output.availableData
                    pending += String(decoding: data, as: UTF8.self)
                    var parts = pending.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    pending = parts.removeLast()
                    self?.append(parts, ended: data.isEmpty)
                    if data.isEmpty { return }
                }
            }
        }

        func send(_ command: String) {
            try? input.write(contentsOf: Data((command + "\n").utf8))
        }

        /// Every line printed so far.
        var printed: [String] { lines.withLockedValue { $0 } }

        /// Waits for the first line, printed or to come, that starts with `prefix`; nil if the process ended
        /// without printing one.
        func line(startingWith prefix: String, after skipped: Int = 0) async -> String? {
            while true {
                let (found, ended) = lines.withLockedValue { lines in
                    (lines.dropFirst(skipped).first { $0.hasPrefix(prefix) }, lines.last == Self.end)
                }
                if let found { return found }
                if ended { return nil }
                await withCheckedContinuation { continuation in arrived.withLockedValue { $0.append(continuation) } }
            }
        }

        /// How many printed lines start with `prefix`.
        func count(_ prefix: String) -> Int { printed.filter { $0.hasPrefix(prefix) }.count }

        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }

        private static let end = "\u{0}end"

        private func append(_ new: [String], ended: Bool) {
            lines.withLockedValue { $0 += new + (ended ? [Self.end] : []) }
            for waiter in arrived.withLockedValue({ waiters in
                defer { waiters = [] }; return waiters
            }) { waiter.resume() }
        }
    }

    let members: [Member]

    /// Starts `count` instances on `table` and waits until each listens.
    init(count: Int, url: String, table: String) async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        members = try (0..<count).map { _ in try Member(executable: executable, url: url, table: table) }
        for member in members {
            guard await member.line(startingWith: "ready") != nil else { throw FleetError.instanceEnded }
        }
    }

    /// Asks every instance to quit, and waits for them.
    func stop() {
        for member in members where member.process.isRunning { member.send("quit") }
        for member in members { member.process.waitUntilExit() }
    }
}

enum FleetError: Error {
    case instanceEnded
}
