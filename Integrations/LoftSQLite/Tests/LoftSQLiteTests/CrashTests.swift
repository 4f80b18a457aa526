import Foundation
import GRDB
import Loft
import LoftTesting
import Testing

@testable import LoftSQLite

/// A writer process killed with SIGKILL at 100 moments of its writing (chosen by a seeded generator: after
/// one to four acknowledged rounds, while the next round's transactions run): after each kill the database
/// opens, every value acknowledged by `flush()` is there, and no row is torn.
@Suite(.timeLimit(.minutes(5))) struct CrashTests {
    /// What the probe writes (the probe's own `Probe` type, decoded here).
    struct Probe: Codable, Equatable {
        let serial: Int
        let payload: String
    }

    let folder = TemporaryFolder()

    @Test("a writer killed 100 times: the database opens, acknowledged values are there, no row is torn")
    func killedWriter() async throws {
        var random = SeededRandom(seed: 2_026)
        var from = 0
        for _ in 0..<100 {
            let rounds = 1 + Int(random.next() % 4)
            let target = from + 5 * rounds
            let probe = try ProbeProcess(["write", folder.database.path, "\(from)"])
            let reached = await probe.line { line in
                line.hasPrefix("acked ") && (Int(line.dropFirst(6)) ?? 0) >= target
            }
            probe.kill()
            try #require(reached != nil, "the writer ended before acknowledging \(target): \(probe.lines)")
            let acknowledged = probe.lines.compactMap { $0.hasPrefix("acked ") ? Int($0.dropFirst(6)) : nil }.max()
            from = try check(acknowledged: try #require(acknowledged))
        }
    }

    /// Checks the database after a kill; returns the highest serial stored (where the next writer goes on).
    private func check(acknowledged: Int) throws -> Int {
        let cache = try SQLiteQueryCache(file: folder.database)
        var highest = acknowledged
        for item in 0..<20 {
            // The latest acknowledged serial of this key (serials are written in order, key = serial % 20).
            let latest = acknowledged - ((acknowledged - item) % 20 + 20) % 20
            guard latest > 0 else { continue }
            let stored = try #require(try cache.get(Probe.self, for: ["item", item])?.value, "item \(item) is missing")
            #expect(stored.serial >= latest, "item \(item) holds \(stored.serial), acknowledged \(latest)")
            #expect(stored.payload == String(repeating: "x", count: stored.serial % 300))
            highest = max(highest, stored.serial)
        }
        // The journal record of the last acknowledged round, or of the round after it, is there and whole.
        let calls = try cache.keys(under: ["loft", "mutations"])
        #expect(
            calls.contains(["loft", "mutations", "call-\(acknowledged)"])
                || calls.contains(["loft", "mutations", "call-\(acknowledged + 5)"]))
        for call in calls { #expect(try cache.get(Probe.self, for: call)?.value.payload == "call") }
        // No torn row: each row's size is its key's and value's, and the totals are the rows'.
        let (torn, sum) = try cache.pool.read { db in
            (
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM loft_entries WHERE byte_size != length(key) + length(value)"),
                try Int.fetchOne(db, sql: "SELECT coalesce(sum(byte_size), 0) FROM loft_entries")
            )
        }
        #expect(torn == 0)
        #expect(sum == cache.byteCount)
        try cache.pool.close()
        return highest
    }
}
