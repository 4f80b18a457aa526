import Foundation
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Mirrors `CrashRecord` of the `CacheCrashWriter` child process.
private struct CrashRecord: Codable {
    var round: Int
    var key: Int
    var body: String

    var isWhole: Bool {
        body.count == 200_000 && body.allSatisfy { $0 == Character(String(round % 10)) }
    }
}

@Suite struct CacheCrashTests {
    @Test("a writer killed with SIGKILL at random moments leaves every record whole: the old value or the new")
    func killedWriterLeavesWholeRecords() throws {
        let writer = try #require(
            ChildProcess.executable("CacheCrashWriter"), "the CacheCrashWriter executable is built with the tests")
        let folder = TemporaryDirectory()
        let keys = 3
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...30 {
            let process = Process()
            process.executableURL = writer
            process.arguments = [folder.path, "\(keys)"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Let it finish a random number of rounds (each rewrites every key), then kill it wherever it is.
            let rounds = Int.random(in: 1...4, using: &generator)
            var seen = 0
            var buffer = Data()
            while seen < rounds {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                seen = buffer.count(where: { $0 == UInt8(ascii: "\n") })
            }
            #expect(seen >= 1, "kill \(attempt): the writer never finished a round")
            // Then a random bit more, so the kill lands anywhere in a round: encoding, writing or renaming.
            spin(Int.random(in: 0..<2_000_000, using: &generator))
            // `kill` of Glibc or Darwin, whichever the platform has.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "kill \(attempt): the writer stopped by itself")

            let cache = JSONFileQueryCache(directory: folder.url)
            for key in 0..<keys {
                let record = try #require(
                    try cache.get(CrashRecord.self, for: QueryKey("crash", key)), "kill \(attempt), key \(key)")
                #expect(record.value.isWhole, "kill \(attempt), key \(key): a torn record")
                #expect(record.value.key == key)
                #expect(Int(record.savedAt.secondsSinceEpoch) == record.value.round)
                #expect(record.value.round >= 1)
            }
            #expect(folder.names.allSatisfy { CacheFileName.isRecord($0) })
        }
    }
}

/// Busy work of `iterations` steps: a delay of random length without sleeping.
@inline(never)
private func spin(_ iterations: Int) {
    var value = 0
    for step in 0..<iterations { value = value &+ step }
    if value == -1 { print(value) }
}
