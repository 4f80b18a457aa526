import Foundation
import Loft
import LoftPostgres
import NIOConcurrencyHelpers

/// One instance of the demo service, run as a process of its own by `Fleet`: a client on the shared table,
/// its link to the other instances, and a fleet-wide single flight in front of a simulated upstream. It
/// reads commands on its standard input and answers on its standard output, one line each.
///
/// Commands: `burst CALLERS KEYS` (that many concurrent requests, caller i asking for key i % KEYS),
/// `invalidate KEY`, `get KEY`, `hang KEY` (a request whose upstream call never returns), `quit`.
/// Unasked lines: `upstream KEY` for each upstream call, `applied NANOSECONDS` for each change of another
/// instance applied.
final class Instance: Sendable {
    let client: QueryClient
    let link: PostgresFleetLink
    let flight: PostgresSingleFlight
    private let upstreamCalls = NIOLockedValueBox(0)
    private let tableAnswers = NIOLockedValueBox(0)
    /// One line written at a time. A plain lock: a locked box of `()` gave the thread sanitizer an access to
    /// report outside the lock.
    private let output = NIOLock()

    init(url: String, table: String) throws {
        let cache = try PostgresQueryCache(url: url, table: table)
        client = QueryClient(
            cache: cache, cacheConfig: QueryCacheConfig(invalidationPolicy: .notExpires, usagePolicy: .useIfFetchFails),
            defaults: QueryDefaults(staleTime: .seconds(60)))
        link = PostgresFleetLink(client: client, cache: cache)
        flight = PostgresSingleFlight(cache: cache, freshFor: .seconds(60))
    }

    /// Runs until `quit` or the end of its input.
    func run() async {
        let subscription = link.events.sink { [self] event in
            if case .applied(let change) = event, case .invalidate = change.operation {
                say("applied \(Clock.nanoseconds())")
            }
        }
        link.start()
        await link.waitUntilListening()
        say("ready")
        while let line = await Self.nextLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            let numbers = words.dropFirst().compactMap { Int($0) }
            switch (command, numbers.count) {
            case ("burst", 2): await burst(callers: numbers[0], keys: numbers[1])
            case ("invalidate", 1): await invalidate(numbers[0])
            case ("get", 1): say("value \(numbers[0]) \((try? await fetch(numbers[0]).name) ?? "failed")")
            case ("hang", 1): Task { _ = try? await fetch(numbers[0], hanging: true) }
            case ("quit", _): break
            default: say("unknown \(line)")
            }
            if command == "quit" { break }
        }
        subscription.cancel()
        await link.stop()
        say("bye")
    }

    /// The value of `key` through the client, the fleet's single flight and the upstream.
    private func fetch(_ key: Int, hanging: Bool = false) async throws -> Profile {
        let query = QueryKey(parts: [.string("user"), .int(key)])
        return try await client.fetchQuery(query) { [self] in
            let called = Flag()
            let profile = try await flight.value(for: query, as: Profile.self) { [self] in
                called.set()
                upstreamCalls.withLockedValue { $0 += 1 }
                say("upstream \(key)")
                if hanging { try await Task.sleep(for: .seconds(3600)) }
                try await Task.sleep(for: .milliseconds(20))  // the upstream's latency
                return Profile(id: key, name: "user \(key) from process \(getpid())")
            }
            if !called.isSet { tableAnswers.withLockedValue { $0 += 1 } }
            return profile
        }
    }

    private func burst(callers: Int, keys: Int) async {
        let start = Clock.nanoseconds()
        let failures = await withTaskGroup(of: Bool.self) { group in
            for caller in 0..<callers {
                group.addTask { [self] in (try? await fetch(caller % keys)) == nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let (upstream, table) = (upstreamCalls.withLockedValue { $0 }, tableAnswers.withLockedValue { $0 })
        let milliseconds = (Clock.nanoseconds() - start) / 1_000_000
        say("done upstream=\(upstream) table=\(table) failures=\(failures) ms=\(milliseconds)")
    }

    private func invalidate(_ key: Int) async {
        let sent = Clock.nanoseconds()
        await client.invalidateQueries(QueryKey(parts: [.string("user"), .int(key)]), exact: true).settled()
        say("invalidated \(sent)")
    }

    private func say(_ line: String) {
        output.withLock { try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8)) }
    }

    private static func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: readLine()) }
        }
    }
}

struct Profile: Codable, Sendable {
    var id: Int
    var name: String
}

/// Wall-clock time, comparable between the processes of one machine.
enum Clock {
    static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// Whether something happened, set from another task.
final class Flag: Sendable {
    private let value = NIOLockedValueBox(false)
    func set() { value.withLockedValue { $0 = true } }
    var isSet: Bool { value.withLockedValue { $0 } }
}
