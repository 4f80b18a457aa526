import Foundation
import Loft
import LoftPostgres
import NIOConcurrencyHelpers

/// One instance of the demo service, run as a process of its own by `Fleet`: a client on the shared table,
/// its link to the other instances, and a fleet-wide single flight in front of a simulated upstream. It
/// reads commands on its standard input and answers on its standard output, one line each.
///
/// Commands: `burst CALLERS KEYS` (that many concurrent requests, caller i asking for key i % KEYS),
/// `invalidate KEY`, `get KEY`, `hang KEY` (a request whose upstream call never returns), `ping N` (answered
/// `pong N` by a task, so only when the cooperative pool has a thread for it), `load N` (N requests for keys
/// no one fetched, which need the database), `memory KEY` (a request for a key this instance holds, answered
/// `memory KEY ok` from memory), `set KEY NAME`, `hold KEY` (prints `holds KEY NAME`), `quit`.
/// Unasked lines: `upstream KEY` for each upstream call, `applied NANOSECONDS` for each invalidation of
/// another instance applied, `lost` and `resumed` for the link's listening connection.
final class Instance: Sendable {
    let client: QueryClient
    let link: PostgresFleetLink
    let flight: PostgresSingleFlight
    private let upstreamCalls = NIOLockedValueBox(0)
    private let tableAnswers = NIOLockedValueBox(0)
    /// One line written at a time. A plain lock: a locked box of `()` gave the thread sanitizer an access to
    /// report outside the lock.
    private let output = NIOLock()

    init(url: String, table: String, timeout: Duration = .seconds(5)) throws {
        let cache = try PostgresQueryCache(url: url, table: table, timeout: timeout)
        client = QueryClient(
            cache: cache, cacheConfig: QueryCacheConfig(invalidationPolicy: .notExpires, usagePolicy: .useIfFetchFails),
            defaults: QueryDefaults(staleTime: .seconds(60)))
        link = PostgresFleetLink(client: client, cache: cache, healthCheckInterval: .seconds(1))
        flight = PostgresSingleFlight(cache: cache, freshFor: .seconds(60))
    }

    /// Runs until `quit` or the end of its input (its parent went away).
    func run() async {
        let subscription = link.events.sink { [self] event in
            switch event {
            case .applied(let change) where change.targets == [.exact(QueryKey("item", "marker"))]:
                if case .setData(let json?) = change.operation { say("marker \(json)") }
            case .applied(let change):
                if case .invalidate = change.operation { say("applied \(Clock.nanoseconds())") }
            case .lost(let error): say("lost \(error)")
            case .resumed: say("resumed")
            default: break
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
            case ("ping", 1): Task { [self] in say("pong \(numbers[0])") }
            case ("load", 1):
                for index in 0..<numbers[0] { Task { _ = try? await fetch(1_000_000 + index) } }
            case ("memory", 1):
                Task { [self] in
                    let answer = try? await client.fetchQuery(QueryKey("user", numbers[0])) {
                        Profile(id: -1, name: "")
                    }
                    say("memory \(numbers[0]) \(answer?.id == numbers[0] ? "ok" : "missing")")
                }
            case ("set", _) where words.count == 3:
                client.setQueryData(Profile(id: 0, name: words[2]), for: QueryKey("item", words[1]))
                await client.flush()
                say("set \(words[1])")
            case ("mixed", 2): await mixed(operations: numbers[0], seed: numbers[1])
            case ("readall", 1):
                for key in 0..<numbers[0] {
                    _ = try? await client.fetchQuery(QueryKey("item", String(key))) {
                        Profile(id: -1, name: "read by \(getpid())")
                    }
                }
                await client.flush()
                say("readall done")
            case ("holdall", 1):
                for key in 0..<numbers[0] {
                    let held = try? client.getQueryData(QueryKey("item", String(key)), as: Profile.self)
                    say("holds \(key) \(held?.name ?? "nothing")")
                }
                say("holdall done")
            case ("hold", _) where words.count == 2:
                let held = try? client.getQueryData(QueryKey("item", words[1]), as: Profile.self)
                say("holds \(words[1]) \(held?.name ?? "nothing")")
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

    /// `operations` random writes, fetches, invalidations and removals over 20 keys, as the users of a busy
    /// instance make them; then the saves are flushed.
    private func mixed(operations: Int, seed: Int) async {
        var random = SplitMix(seed: UInt64(seed))
        for step in 0..<operations {
            let key = QueryKey("item", String(Int.random(in: 0..<20, using: &random)))
            let value = Profile(id: step, name: "\(getpid())-\(step)")
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4: client.setQueryData(value, for: key)
            case 4..<7: _ = try? await client.fetchQuery(key, staleTime: .zero) { value }
            case 7..<9: await client.invalidateQueries(key, exact: true).settled()
            default: client.removeQueries(key, exact: true)
            }
        }
        await client.flush()
        say("mixed done")
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

/// A seeded random sequence (SplitMix64), the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Whether something happened, set from another task.
final class Flag: Sendable {
    private let value = NIOLockedValueBox(false)
    func set() { value.withLockedValue { $0 = true } }
    var isSet: Bool { value.withLockedValue { $0 } }
}
