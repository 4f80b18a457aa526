import Foundation
import Loft
import LoftPostgres
import PostgresNIO

// The add-on's benchmarks, against the server at LOFT_POSTGRES_URL (`scripts/postgres-local start` prints
// it); each row beside a baseline measured in the same run, taking turns, so the ratio holds on a busy
// machine. `--quick` runs a tenth of the reads, to prove the scenarios run.
//
// - A read served from PostgreSQL: `PostgresQueryCache.get` of a present key (the row's JSON decoded into
//   the type asked for), against a bare `SELECT` of the same row's value through postgres-nio, awaited, its
//   text decoded the same way. Target: 1.5×.
// - Invalidation fan-out: `invalidateQueries` of a key on one instance until the clients of 3 other
//   instances (each with its own `PostgresFleetLink`) have applied it, against a bare `pg_notify` of the same
//   payload through postgres-nio until 3 listening connections have received it. Target: 2×.
// - The version a served read carries: the statement a read served from PostgreSQL runs (the row's value, type,
//   save time and version), against the same without the version, through postgres-nio, decoded alike. In
//   memory a read makes no check at all: the entry compares versions only when a change or a row arrives.
//   Target: 1.2×.
// - Upstream calls of 3 instances × 1,000 concurrent requests over 100 keys, through `fetchQuery` and a
//   `PostgresSingleFlight` each: the count, which must be 100.

struct Profile: Codable, Equatable {
    var id: Int
    var name: String
    var email: String
}

guard let url = ProcessInfo.processInfo.environment["LOFT_POSTGRES_URL"] else {
    print("Set LOFT_POSTGRES_URL: eval \"$(scripts/postgres-local start)\" starts a throwaway server.")
    exit(2)
}
let quick = CommandLine.arguments.contains("--quick")
let reads = quick ? 200 : 2_000
let rounds = quick ? 2 : 5
let table = "bench_\(ProcessInfo.processInfo.processIdentifier)"
let cache = try PostgresQueryCache(url: url, table: table)
let expected = Profile(id: 42, name: "Ada Lovelace", email: "ada@example.com")
try await cache.save(expected, for: ["user", 42])
let configuration = try PostgresCacheConfiguration(url: url)
let connection = try await PostgresConnection.connect(
    configuration: configuration.connection,
    id: 1, logger: Logger(label: "loft.postgres.benchmarks"))
let keyText = String(decoding: try JSONEncoder().encode(QueryKey("user", 42)), as: UTF8.self)

/// The time per read of `body` run `reads` times.
func perRead(_ body: () async throws -> Profile?) async throws -> Double {
    let start = ContinuousClock.now
    for _ in 0..<reads {
        guard try await body() == expected else { fatalError("every read returns the saved value") }
    }
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        / Double(reads)
}

var best = Double.infinity
var baseline = Double.infinity
for _ in 0..<rounds {
    best = min(best, try await perRead { try await cache.get(Profile.self, for: ["user", 42])?.value })
    baseline = min(
        baseline,
        try await perRead {
            let rows = try await connection.query(
                "SELECT value::text FROM \"\(unescaped: table)\" WHERE key = \(keyText)", logger: connection.logger)
            for try await text in rows.decode(String.self) {
                return try JSONDecoder().decode(Profile.self, from: Data(text.utf8))
            }
            return nil
        })
}
/// The time per read of the row with `columns`, decoded (the version, when asked for, as one more column).
func perRead(columns: String, withVersion: Bool) async throws -> Double {
    try await perRead {
        let rows = try await connection.query(
            "SELECT \(unescaped: columns) FROM \"\(unescaped: table)\" WHERE key = \(keyText)",
            logger: connection.logger)
        for try await row in rows {
            let text: String
            if withVersion {
                (text, _, _, _) = try row.decode((String, String, Int64, Int64).self)
            } else {
                (text, _, _) = try row.decode((String, String, Int64).self)
            }
            return try JSONDecoder().decode(Profile.self, from: Data(text.utf8))
        }
        return nil
    }
}
var versioned = Double.infinity
var unversioned = Double.infinity
for _ in 0..<rounds {
    versioned = min(
        versioned, try await perRead(columns: "value::text, type_name, saved_at, version", withVersion: true))
    unversioned = min(unversioned, try await perRead(columns: "value::text, type_name, saved_at", withVersion: false))
}
let fanOut = try await FanOut.measure(url: url, table: table, connection: connection, rounds: rounds, quick: quick)
let upstreamCalls = try await UpstreamCount.measure(url: url, table: table + "_flight")
try await dropTable(on: connection)

/// Removes the benchmark's table and its schema row, and closes the connection.
func dropTable(on connection: PostgresConnection) async throws {
    for name in [table, table + "_flight"] {
        _ = try await connection.query("DROP TABLE \"\(unescaped: name)\"", logger: connection.logger)
        _ = try await connection.query(
            "DROP SEQUENCE IF EXISTS \"\(unescaped: name)_version\"", logger: connection.logger)
        _ = try await connection.query("DELETE FROM loft_schema WHERE name = \(name)", logger: connection.logger)
    }
    try await connection.close()
}

let ratio = best / baseline
print("| scenario | time | baseline | ratio | target | |")
print("|---|---|---|---|---|---|")
print(
    "| a read served from PostgreSQL | \(String(format: "%.1f", best / 1000)) µs "
        + "| \(String(format: "%.1f", baseline / 1000)) µs a bare SELECT through postgres-nio "
        + "| \(String(format: "%.2f", ratio))× | ≤ 1.5× | \(ratio <= 1.5 ? "ok" : "MISSED") |")
let versionRatio = versioned / unversioned
print(
    "| the version a served read carries | \(String(format: "%.1f", versioned / 1000)) µs "
        + "| \(String(format: "%.1f", unversioned / 1000)) µs the same read without the version "
        + "| \(String(format: "%.2f", versionRatio))× | ≤ 1.2× | \(versionRatio <= 1.2 ? "ok" : "MISSED") |")
let fanOutRatio = fanOut.loft / fanOut.baseline
print(
    "| invalidation fan-out to 3 instances | \(String(format: "%.1f", fanOut.loft / 1000)) µs "
        + "| \(String(format: "%.1f", fanOut.baseline / 1000)) µs a bare pg_notify to 3 listeners "
        + "| \(String(format: "%.2f", fanOutRatio))× | ≤ 2× | \(fanOutRatio <= 2 ? "ok" : "MISSED") |")
print(
    "| upstream calls, 3 instances × 1,000 concurrent requests over 100 keys | \(upstreamCalls) calls | "
        + "100 keys | | = 100 | \(upstreamCalls == 100 ? "ok" : "MISSED") |")
