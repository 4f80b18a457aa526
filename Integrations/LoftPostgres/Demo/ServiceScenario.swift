import Foundation
import LoftPostgres
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo as a team would run it: three HTTP instances of the service (`Service`), loaded from outside by
/// `wrk` with overlapping keys; then invalidations made on one instance, timed to their arrival on the
/// others, beside a bare `NOTIFY` to the same instances measured in the same run.
enum ServiceScenario {
    static let keys = 100

    static func run(url: String, table: String, seconds: Int, rounds: Int, json: Bool) async throws {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile)
        else {
            print("The service scenario loads the instances with wrk: install it (apt-get install wrk).")
            throw FleetError.instanceDidNotStart(printed: ["no wrk"])
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let members = try (0..<3).map { _ in
            try Fleet.Member(executable: executable, arguments: ["serve", url, table])
        }
        let fleet = Fleet(members: members)
        defer { fleet.terminate() }
        var ports: [Int] = []
        for member in members {
            guard let ready = await member.line(startingWith: "ready", within: .seconds(15)),
                let port = Int(ready.split(separator: " ").last ?? "")
            else { throw FleetError.instanceDidNotStart(printed: member.printed) }
            ports.append(port)
        }

        // The load: every instance at once, each key of `keys` asked at random.
        let script = FileManager.default.temporaryDirectory.appending(path: "loft-wrk-\(UUID().uuidString).lua")
        try """
        request = function()
            return wrk.format("GET", "/users/" .. math.random(0, \(keys - 1)))
        end
        """.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for port in ports {
                group.addTask {
                    try await Self.output(
                        of: wrk,
                        [
                            "-t1", "-c16", "-d\(seconds)s", "--timeout", "5s", "-s", script.path,
                            "http://127.0.0.1:\(port)",
                        ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let served = outputs.map(Self.requests).reduce(0, +)
        let errors = outputs.map(Self.errors).reduce(0, +)
        // Then every instance is asked every key once, so that what the counts say does not depend on the
        // keys wrk happened to pick.
        for port in ports {
            for key in 0..<keys { _ = try await Self.get("http://127.0.0.1:\(port)/users/\(key)") }
        }
        var stats: [[String: Int]] = []
        for port in ports {
            let data = try await Self.get("http://127.0.0.1:\(port)/stats")
            stats.append((try JSONSerialization.jsonObject(with: data) as? [String: Int]) ?? [:])
        }
        let sum = { (name: String) in stats.map { $0[name] ?? 0 }.reduce(0, +) }
        let upstreamCalls = sum("upstreamCalls")
        let fromTable = sum("fromTable")
        let requests = sum("requests")
        let maximumPerKey = stats.map { $0["maximumPerKey"] ?? 0 }.max() ?? 0

        // Invalidations: made on the first instance, timed to the moment each other instance applied them;
        // and the baseline, a bare NOTIFY from this process timed to its arrival in those instances, on a
        // connection of their own. The two take turns, so both see the same machine.
        let configuration = try PostgresCacheConfiguration(url: url, timeout: .seconds(5))
        let logger = Logger(label: "loft.demo")
        let sender = try await PostgresConnection.connect(
            configuration: configuration.connection,
            id: 10, logger: logger)
        defer { Task { try? await sender.close() } }
        var loft: [Int64] = []
        var bare: [Int64] = []
        for round in 0..<rounds {
            let applied = ports.dropFirst().map { port in
                Task { try await Self.get("http://127.0.0.1:\(port)/applied/\(round)") }
            }
            let made = try await Self.post("http://127.0.0.1:\(ports[0])/users/\(round % keys)/invalidate")
            loft.append(try await Self.latest(applied) - (Int64(String(decoding: made, as: UTF8.self)) ?? 0))

            let received = ports.dropFirst().map { port in
                Task { try await Self.get("http://127.0.0.1:\(port)/bare/\(round)") }
            }
            let sent = Clock.nanoseconds()
            _ = try await sender.query("SELECT pg_notify(\(table + "_bare"), 'x')", logger: logger).collect()
            bare.append(try await Self.latest(received) - sent)
        }

        let (loftMedian, loftP99) = (Self.percentile(loft, 0.5), Self.percentile(loft, 0.99))
        let (bareMedian, bareP99) = (Self.percentile(bare, 0.5), Self.percentile(bare, 0.99))
        if json {
            let summary: [String: Int] = [
                "requestsServed": served, "requestsCounted": requests, "errors": errors, "keys": keys,
                "upstreamCalls": upstreamCalls, "maximumPerKey": maximumPerKey, "fromTable": fromTable,
                "fromMemory": requests - upstreamCalls - fromTable, "rounds": rounds,
                "invalidationMedianMicroseconds": Int(loftMedian / 1_000),
                "invalidationP99Microseconds": Int(loftP99 / 1_000),
                "notifyMedianMicroseconds": Int(bareMedian / 1_000), "notifyP99Microseconds": Int(bareP99 / 1_000),
            ]
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let ms = { (nanoseconds: Int64) in String(format: "%.2f ms", Double(nanoseconds) / 1e6) }
        print("3 HTTP instances loaded by wrk for \(seconds) s each, 16 connections, \(keys) keys at random:")
        print("  requests served: \(served) (\(errors) errors)")
        print("  upstream calls: \(upstreamCalls) for \(keys) keys, at most \(maximumPerKey) per key")
        print("  answered from PostgreSQL (another instance's fetch): \(fromTable)")
        print("  answered from memory: \(requests - upstreamCalls - fromTable)")
        print("invalidation of a key on instance 1 until instances 2 and 3 applied it, \(rounds) rounds:")
        print("  median \(ms(loftMedian)), p99 \(ms(loftP99))")
        print("  a bare NOTIFY to the same instances, same run: median \(ms(bareMedian)), p99 \(ms(bareP99))")
        print(
            "  ratio: median \(String(format: "%.2f", Double(loftMedian) / Double(max(bareMedian, 1))))×, "
                + "p99 \(String(format: "%.2f", Double(loftP99) / Double(max(bareP99, 1))))×")
    }

    /// The latest of the times the tasks answered.
    private static func latest(_ answers: [Task<Data, any Error>]) async throws -> Int64 {
        var latest: Int64 = 0
        for answer in answers {
            latest = max(latest, Int64(String(decoding: try await answer.value, as: UTF8.self)) ?? 0)
        }
        return latest
    }

    static func percentile(_ values: [Int64], _ fraction: Double) -> Int64 {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }

    private static func requests(in output: String) -> Int {
        // "12345 requests in 5.00s, 2.01MB read"
        for line in output.split(separator: "\n") where line.contains("requests in") {
            return Int(line.split(separator: " ").first ?? "") ?? 0
        }
        return 0
    }

    private static func errors(in output: String) -> Int {
        // "Socket errors: connect 0, read 0, write 0, timeout 0" and "Non-2xx or 3xx responses: 12"
        var errors = 0
        for line in output.split(separator: "\n") {
            if line.contains("Socket errors") {
                errors += line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.reduce(0, +)
            } else if line.contains("Non-2xx") {
                errors += Int(line.split(separator: " ").last ?? "") ?? 0
            }
        }
        return errors
    }

    /// What `executable` printed, once it ended (awaited: no thread waits for it).
    private static func output(of executable: String, _ arguments: [String]) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appending(path: "loft-wrk-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(filePath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        try await withCheckedThrowingContinuation { (ended: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in ended.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                ended.resume(throwing: error)
            }
        }
        return String(decoding: try Data(contentsOf: output), as: UTF8.self)
    }

    private static func get(_ address: String) async throws -> Data {
        try await request(address, method: "GET")
    }

    private static func post(_ address: String) async throws -> Data {
        try await request(address, method: "POST")
    }

    private static func request(_ address: String, method: String) async throws -> Data {
        guard let url = URL(string: address) else { throw URLError(.badURL) }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = method
        let (data, _) = try await URLSession.shared.data(for: request)
        return data
    }
}

/// Counts arrivals, and resumes the one waiting for a number of them.
final class Arrivals: Sendable {
    private let state = NIOLockedValueBox<(count: Int, target: Int, waiter: CheckedContinuation<Void, Never>?)>(
        (0, 0, nil))

    func arrive() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.count += 1
            guard state.count >= state.target, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func reset() {
        state.withLockedValue { $0.count = 0 }
    }

    /// Returns once `count` arrived since the last reset.
    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let arrived = state.withLockedValue { state -> Bool in
                if state.count >= count { return true }
                state.target = count
                state.waiter = continuation
                return false
            }
            if arrived { continuation.resume() }
        }
    }
}
