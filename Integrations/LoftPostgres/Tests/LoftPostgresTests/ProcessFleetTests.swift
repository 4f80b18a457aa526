import Foundation
import Testing

/// The fleet as separate processes: the demo executable (`LoftPostgresDemo`, built beside the tests) starts
/// its instances as processes of their own on loopback, and reports what happened as JSON.
@Suite(.timeLimit(.minutes(2))) struct ProcessFleetTests {
    @Test func threeProcessesOfAThousandCallersCallTheUpstreamOncePerKeyShareValuesAndInvalidations() throws {
        let summary = try Self.demo(["--instances", "3", "--requests", "1000", "--keys", "100", "--json"])
        #expect(summary["failures"] as? Int == 0)
        #expect(summary["upstreamCalls"] as? Int == 100)
        #expect(summary["maximumPerKey"] as? Int == 1)
        // The two instances that did not call the upstream for a key read it from the table.
        #expect(summary["servedFromTable"] as? Int == 200)
        #expect(summary["invalidationReached"] as? Int == 2)
        #expect(summary["refetchUpstreamCalls"] as? Int == 1)
    }

    @Test func killingTheFetchingProcessLetsAnotherTakeOver() throws {
        let summary = try Self.demo(["takeover", "--json"])
        #expect(summary["tookOver"] as? Bool == true)
    }

    /// Runs the demo with `arguments` and reads the JSON line it printed last.
    private static func demo(_ arguments: [String]) throws -> [String: Any] {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map {
            $0.appending(path: "LoftPostgresDemo")
        }
        let executable = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) })
        var environment = ProcessInfo.processInfo.environment
        environment["LOFT_POSTGRES_URL"] = try TestServer.url
        let output = FileManager.default.temporaryDirectory.appending(path: "loft-demo-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n")
        let last = try #require(lines.last, "the demo printed nothing")
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    }
}
