import Foundation
import LoftTesting
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The offline journal under `SIGKILL`: a child process (`MutationCrashClient churn`) that resumes, submits,
/// saves and sends mutations is killed at moments a seeded generator picks, life after life, then one last life
/// runs to the end. Against a server that logs every request with its idempotency key and the process that
/// sent it.
@Suite(.serialized, .timeLimit(.minutes(1))) struct MutationKillTests {
    /// One life of the child: what it said before it was killed (or ended), and its process id.
    struct Life {
        let lines: [String]
        let pid: Int32
        /// How the life ended, and what it wrote on its standard error (for a failure's message).
        let ending: String
    }

    /// Runs one life of the child; kills it after it said `killAfter` lines (nil: lets it end).
    static func live(
        _ child: URL, folder: TemporaryDirectory, first: Int, count: Int, killAfter: Int?
    ) throws -> Life {
        let process = Process()
        process.executableURL = child
        process.arguments = [
            "churn", folder.url.appendingPathComponent("cache").path, folder.path + "/server.log", "\(first)",
            "\(count)",
        ]
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        var heard = Data()
        var lines: [String] = []
        while killAfter.map({ lines.count < $0 }) ?? true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            heard.append(chunk)
            lines = String(decoding: heard, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        if killAfter != nil { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Life(
            lines: lines, pid: process.processIdentifier,
            ending:
                "status \(process.terminationStatus) \(process.terminationReason == .exit ? "exit" : "signal"): \(stderr)"
        )
    }

    @Test(
        "killed at random moments: every saved call reaches the server, under one key, once per process, never after it settled"
    )
    func killedAtRandomMoments() throws {
        let child = try #require(
            ChildProcess.executable("MutationCrashClient"), "the MutationCrashClient executable is built with the tests"
        )
        let folder = TemporaryDirectory()
        try folder.write("", to: "server.log")
        var random = SeededRandom(seed: 38)
        let count = 4
        var lives: [Life] = []
        for round in 0..<14 {
            // A life says about 4 lines per call and two more: killed anywhere from its first line to its last.
            let killAfter = 1 + Int(random.next() % UInt64(4 * count + 2))
            lives.append(try Self.live(child, folder: folder, first: round * count, count: count, killAfter: killAfter))
        }
        let last = try Self.live(child, folder: folder, first: 1_000, count: 0, killAfter: nil)
        lives.append(last)
        // "done" may come before the last calls' own lines: those are said by the thread that publishes them.
        #expect(last.lines.contains("done"), "the last life ends: \(last.lines), \(last.ending)")
        let resumedAfterKill = lives.filter { $0.lines.contains { $0.hasPrefix("resumed ") && $0 != "resumed 0" } }
        #expect(!resumedAfterKill.isEmpty, "lives were killed with calls left to resume")

        let log = try #require(folder.contents(of: "server.log")).split(separator: "\n").map { line in
            line.split(separator: " ").map(String.init)
        }
        #expect(log.allSatisfy { $0.count == 3 }, "no torn line in the server's log")
        // Every call a life saw saved reached the server.
        let saved = Set(lives.flatMap { $0.lines.filter { $0.hasPrefix("saved ") }.map { String($0.dropFirst(6)) } })
        let sent = Set(log.map { $0[1] })
        let failed = Set(lives.flatMap { $0.lines.filter { $0.hasPrefix("failed ") } })
        #expect(failed.isEmpty, "the server failed no request: \(failed)")
        #expect(
            saved.isSubset(of: sent),
            "saved but never sent: \(saved.subtracting(sent).sorted()); lives: \(lives.map { $0.lines + [$0.ending] })")
        #expect(!saved.isEmpty, "the lives saved calls")
        // One idempotency key per operation.
        let keys = Dictionary(grouping: log, by: { $0[1] }).mapValues { Set($0.map { $0[0] }) }
        #expect(
            keys.values.allSatisfy { $0.count == 1 },
            "an operation under two keys: \(keys.filter { $0.value.count > 1 })")
        // Once per process.
        let perProcess = Dictionary(grouping: log, by: { "\($0[2]) \($0[1])" })
        #expect(perProcess.values.allSatisfy { $0.count == 1 }, "sent twice by one process")
        // Never by a later life once a life saw it settled.
        let order = Dictionary(uniqueKeysWithValues: lives.enumerated().map { (String($0.element.pid), $0.offset) })
        for (index, life) in lives.enumerated() {
            for line in life.lines where line.hasPrefix("settled ") {
                let request = String(line.dropFirst(8))
                let later = log.filter { $0[1] == request && (order[$0[2]] ?? 0) > index }
                #expect(later.isEmpty, "\(request) sent again after it settled")
            }
        }
        // No journal record is left, and none is corrupt.
        let cache = JSONFileQueryCache(directory: folder.url.appendingPathComponent("cache"))
        #expect(try cache.keys(under: MutationJournal.prefix).isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("cache").path)
        #expect(files.allSatisfy { !$0.contains(".tmp-") }, "no temporary file left: \(files)")
    }
}
