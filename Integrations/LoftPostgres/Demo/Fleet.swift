import Foundation
import NIOConcurrencyHelpers

/// The instances of the demo service, each a process of this executable (`instance URL TABLE`), driven
/// through their standard input and output.
final class Fleet: Sendable {
    /// One instance's process and what it printed.
    final class Member: Sendable {
        let process: Process
        private let input: FileHandle
        /// What it printed, and who waits for more (one lock: a line cannot arrive between a look and a wait).
        private let state = NIOLockedValueBox<(lines: [String], waiters: [CheckedContinuation<Void, Never>])>(([], []))

        init(executable: URL, arguments: [String]) throws {
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
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
        var printed: [String] { state.withLockedValue { $0.lines } }

        /// Waits at most `limit` for the first line, printed or to come, that starts with `prefix`; nil if the
        /// process ended without printing one, or the time ran out.
        func line(startingWith prefix: String, after skipped: Int = 0, within limit: Duration = .seconds(60)) async
            -> String?
        {
            let deadline = ContinuousClock.now + limit
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline)
                self?.append([], ended: false)
            }
            defer { timer.cancel() }
            while true {
                var found: String?
                await withCheckedContinuation { continuation in
                    let answered = state.withLockedValue { state -> Bool in
                        found = state.lines.dropFirst(skipped).first { $0.hasPrefix(prefix) }
                        guard found == nil, state.lines.last != Self.end, ContinuousClock.now < deadline else {
                            return true
                        }
                        state.waiters.append(continuation)
                        return false
                    }
                    if answered { continuation.resume() }
                }
                if found != nil || ContinuousClock.now >= deadline || printed.last == Self.end {
                    return found ?? state.withLockedValue { $0.lines.dropFirst(skipped).first { $0.hasPrefix(prefix) } }
                }
            }
        }

        /// How many printed lines start with `prefix`.
        func count(_ prefix: String) -> Int { printed.filter { $0.hasPrefix(prefix) }.count }

        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
        }

        private static let end = "\u{0}end"

        private func append(_ new: [String], ended: Bool) {
            let waiters = state.withLockedValue { state in
                state.lines += new + (ended ? [Self.end] : [])
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    let members: [Member]

    /// The members given, started already.
    init(members: [Member]) {
        self.members = members
    }

    /// Starts `count` instances on `table` (each call of theirs waiting at most `timeout`) and waits until
    /// each listens, at most three timeouts: one that does not is stopped, and the error says what it printed.
    init(count: Int, url: String, table: String, timeout: Duration = .seconds(5)) async throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let milliseconds = Int(
            timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        members = try (0..<count).map { _ in
            try Member(executable: executable, arguments: ["instance", url, table, String(milliseconds)])
        }
        for member in members where await member.line(startingWith: "ready", within: timeout * 3) == nil {
            stop()
            throw FleetError.instanceDidNotStart(printed: member.printed.filter { !$0.hasPrefix("\u{0}") })
        }
    }

    /// Asks every instance to quit, and waits for them (killing one that does not quit within 5 seconds).
    func stop() {
        for member in members where member.process.isRunning { member.send("quit") }
        waitForExit()
    }

    /// Waits for every member to end, killing one still running after 5 seconds.
    func waitForExit() {
        for member in members {
            let deadline = Date().addingTimeInterval(5)
            while member.process.isRunning, Date() < deadline { usleep(10_000) }
            if member.process.isRunning { member.kill() }
            member.process.waitUntilExit()
        }
    }
}

extension Fleet {
    /// Stops every member with SIGTERM, and waits for them (killing one still running after 5 seconds).
    func terminate() {
        for member in members where member.process.isRunning { member.process.terminate() }
        waitForExit()
    }
}

enum FleetError: Error, CustomStringConvertible {
    case instanceDidNotStart(printed: [String])

    var description: String {
        switch self {
        case .instanceDidNotStart(let printed):
            "an instance did not start listening; it said: "
                + (printed.isEmpty ? "nothing" : printed.joined(separator: " | "))
        }
    }
}
