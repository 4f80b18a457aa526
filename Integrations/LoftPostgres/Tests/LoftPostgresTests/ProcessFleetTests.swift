import Foundation
import Testing

/// The fleet as separate processes: the demo executable (`LoftPostgresDemo`, built beside the tests) starts
/// its instances as processes of their own on loopback, and reports what happened as JSON.
/// One at a time: each starts three processes or more (wrk, a server of its own), and several at once
/// overloaded a 2-core machine under the thread sanitizer until the other suites' calls timed out.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ProcessFleetTests {
    @Test func threeProcessesOfAThousandCallersCallTheUpstreamOncePerKeyShareValuesAndInvalidations() async throws {
        let summary = try await Self.demo(["--instances", "3", "--requests", "1000", "--keys", "100", "--json"])
        #expect(summary["failures"] as? Int == 0)
        #expect(summary["upstreamCalls"] as? Int == 100)
        #expect(summary["maximumPerKey"] as? Int == 1)
        // The two instances that did not call the upstream for a key read it from the table.
        #expect(summary["servedFromTable"] as? Int == 200)
        #expect(summary["invalidationReached"] as? Int == 2)
        #expect(summary["refetchUpstreamCalls"] as? Int == 1)
    }

    @Test func killingTheFetchingProcessLetsAnotherTakeOver() async throws {
        let summary = try await Self.demo(["takeover", "--json"])
        #expect(summary["tookOver"] as? Bool == true)
    }

    /// Three HTTP instances loaded by wrk: one upstream call per key for the whole fleet, every other
    /// instance's first request of a key answered from PostgreSQL, the rest from memory; invalidations timed.
    @Test func threeHTTPInstancesUnderWrkCallTheUpstreamOncePerKey() async throws {
        let summary = try await Self.demo(["service", "--seconds", "2", "--rounds", "50", "--json"])
        #expect(summary["errors"] as? Int == 0)
        #expect(summary["requestsServed"] as? Int ?? 0 > 0)
        #expect(summary["upstreamCalls"] as? Int == 100)
        #expect(summary["maximumPerKey"] as? Int == 1)
        #expect(summary["fromTable"] as? Int == 200)
        #expect(summary["fromMemory"] as? Int ?? 0 > 0)
        #expect(summary["rounds"] as? Int == 50)
        #expect(summary["invalidationMedianMicroseconds"] as? Int ?? 0 > 0)
        #expect(summary["notifyMedianMicroseconds"] as? Int ?? 0 > 0)
    }

    @Test func aRowOfAnotherTypeIsAMissForThreeProcessesAndIsReplacedOnce() async throws {
        let summary = try await Self.demo(["undecodable", "--json"])
        #expect(summary["answered"] as? Int == 3)
        #expect(summary["upstreamCalls"] as? Int == 1)
        #expect(summary["replaced"] as? Bool == true)
    }

    @Test func twoWritersAtOnceAndThreeProcessesOfMixedChangesConvergeOnTheRows() async throws {
        let summary = try await Self.demo(["converge", "--json"])
        #expect(summary["rounds"] as? Int == 100)
        #expect(summary["divergedRounds"] as? Int == 0)
        #expect(summary["keysCompared"] as? Int ?? 0 >= 20)
        #expect(summary["keysDiverged"] as? Int == 0)
    }

    /// A server stopped with SIGSTOP for 8 seconds: every instance answers every ping (within 100 ms), serves
    /// what it holds, reports its listening connection lost, and resumes once the server goes on.
    @Test func aFrozenServerLeavesEveryInstanceResponsiveAndIsReportedLost() async throws {
        let summary = try await OwnServer.with { server in
            try await Self.demo(["hang", "--server-dir", server.directory.path, "--json"], url: server.url)
        }
        #expect(summary["missedPings"] as? Int == 0)
        #expect(summary["pings"] as? Int ?? 0 >= 150)
        #expect(summary["slowestPingMilliseconds"] as? Int ?? .max <= 100)
        #expect(summary["memoryAnswers"] as? Int ?? 0 >= 15)
        #expect(summary["lost"] as? Int == 3)
        #expect(summary["resumed"] as? Int == 3)
    }

    @Test func withNoServerTheDemoEndsWithinSecondsSayingWhy() async throws {
        let port = try await closedPort()
        let started = ContinuousClock.now
        let (status, output) = try await Self.run(["--json"], url: "postgres://postgres@127.0.0.1:\(port)/loft")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(status == 1)
        #expect(output.contains("cannot use the server"))
        #expect(output.contains("Connection refused"))
    }

    /// Runs the demo with `arguments` and reads the JSON line it printed last.
    private static func demo(_ arguments: [String], url: String? = nil) async throws -> [String: Any] {
        let (status, output) = try await run(arguments, url: url)
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n")
        let last = try #require(lines.last, "the demo printed nothing")
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    }

    /// Runs the demo with `arguments` on the server at `url` (the test server's by default): its status and
    /// what it printed.
    private static func run(_ arguments: [String], url: String? = nil) async throws -> (Int32, String) {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map {
            $0.appending(path: "LoftPostgresDemo")
        }
        let executable = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) })
        var environment = ProcessInfo.processInfo.environment
        environment["LOFT_POSTGRES_URL"] = try url ?? TestServer.url
        let output = FileManager.default.temporaryDirectory.appending(path: "loft-demo-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        let status = try await process.runUntilExit()
        return (status, String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }
}
