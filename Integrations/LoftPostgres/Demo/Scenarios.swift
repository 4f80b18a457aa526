import Foundation
import Loft
import LoftPostgres

/// What the demo does with its fleet, and what it prints.
enum Scenarios {
    /// Every instance asks for `requests` values over `keys` keys at once; then one instance invalidates a key
    /// and the others ask for it again.
    static func hammer(url: String, table: String, instances: Int, requests: Int, keys: Int, json: Bool) async throws {
        let fleet = try await Fleet(count: instances, url: url, table: table)
        defer { fleet.stop() }
        for member in fleet.members { member.send("burst \(requests) \(keys)") }
        var served = 0
        var failures = 0
        for member in fleet.members {
            let done = await member.line(startingWith: "done")
            let fields = Dictionary(
                uniqueKeysWithValues: (done ?? "").split(separator: " ").dropFirst().compactMap { field in
                    let pair = field.split(separator: "=")
                    return pair.count == 2 ? (String(pair[0]), Int(pair[1]) ?? 0) : nil
                })
            served += fields["table", default: 0]
            failures += done == nil ? requests : fields["failures", default: 0]
        }
        var perKey: [Int: Int] = [:]
        for member in fleet.members {
            for line in member.printed where line.hasPrefix("upstream ") {
                perKey[Int(line.dropFirst("upstream ".count)) ?? -1, default: 0] += 1
            }
        }
        let upstreamBefore = perKey.values.reduce(0, +)

        // One instance invalidates key 7; the others apply it, and their next request refetches.
        let skipped = fleet.members.map { $0.printed.count }
        fleet.members[0].send("invalidate 7")
        let sent =
            Int64(
                (await fleet.members[0].line(startingWith: "invalidated", after: skipped[0]) ?? "")
                    .split(separator: " ").last ?? "") ?? 0
        var latencies: [Int64] = []
        for (index, member) in fleet.members.enumerated().dropFirst() {
            let applied = await member.line(startingWith: "applied", after: skipped[index])
            latencies.append((Int64(applied?.split(separator: " ").last ?? "") ?? sent) - sent)
        }
        for member in fleet.members.dropFirst() { member.send("get 7") }
        for (index, member) in fleet.members.enumerated().dropFirst() {
            _ = await member.line(startingWith: "value 7", after: skipped[index])
        }
        let refetches = fleet.members.enumerated().map { index, member in
            member.printed.dropFirst(skipped[index]).filter { $0 == "upstream 7" }.count
        }.reduce(0, +)

        let total = requests * instances
        let worst = latencies.max() ?? 0
        if json {
            let summary: [String: Int] = [
                "instances": instances, "requests": total, "keys": keys, "upstreamCalls": upstreamBefore,
                "keysCalledOnce": perKey.values.filter { $0 == 1 }.count, "maximumPerKey": perKey.values.max() ?? 0,
                "servedFromTable": served, "failures": failures, "invalidationReached": latencies.count,
                "invalidationMicroseconds": Int(worst / 1000), "refetchUpstreamCalls": refetches,
            ]
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("\(instances) instances × \(requests) concurrent requests over \(keys) keys (\(total) requests)")
        print("  upstream calls: \(upstreamBefore) for \(perKey.count) keys", terminator: "")
        print(
            " (\(perKey.values.filter { $0 == 1 }.count) keys called once, at most \(perKey.values.max() ?? 0) per key)"
        )
        for key in perKey.keys.sorted().prefix(5) { print("    user/\(key): \(perKey[key] ?? 0) upstream call(s)") }
        if perKey.count > 5 { print("    …") }
        print("  answered from PostgreSQL (another instance's fetch): \(served)")
        print("  failed requests: \(failures)")
        print("invalidation of user/7 on instance 1:")
        for (index, latency) in latencies.enumerated() {
            print("  reached instance \(index + 2) after \(String(format: "%.2f", Double(latency) / 1e6)) ms")
        }
        print("  upstream calls of the refetch on the other instances: \(refetches)")
    }

    /// The instance fetching a key is killed mid-fetch; another instance asks for the key and takes over.
    static func takeover(url: String, table: String, json: Bool) async throws {
        let fleet = try await Fleet(count: 2, url: url, table: table)
        defer { fleet.stop() }
        let (doomed, survivor) = (fleet.members[0], fleet.members[1])
        doomed.send("hang 5")
        _ = await doomed.line(startingWith: "upstream 5")
        survivor.send("get 5")  // waits for the doomed instance's lock
        doomed.kill()
        let started = Clock.nanoseconds()
        let value = await survivor.line(startingWith: "value 5") ?? "none"
        let waited = (Clock.nanoseconds() - started) / 1_000_000
        let tookOver =
            survivor.count("upstream 5") == 1 && value.contains("process \(survivor.process.processIdentifier)")
        if json {
            let summary: [String: Any] = ["tookOver": tookOver, "value": value, "milliseconds": Int(waited)]
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("the instance fetching user/5 was killed (SIGKILL) while its upstream call ran")
        print("  the other instance \(tookOver ? "took over" : "did not take over") after \(waited) ms: \(value)")
    }

    /// Two instances write one key at the same moment, 100 rounds; then three instances make 2,000 random
    /// changes each over 20 keys at once. After each, every instance must hold the rows' values.
    static func converge(url: String, table: String, json: Bool) async throws {
        let fleet = try await Fleet(count: 3, url: url, table: table)
        defer { fleet.stop() }
        let rows = try PostgresQueryCache(url: url, table: table)
        var marker = 0
        /// Writes a marker row after everything sent so far and waits until every instance received it: the
        /// notifications arrive in commit order, so every earlier one has been applied.
        func quiesce() async throws {
            marker += 1
            let skipped = fleet.members.map { $0.printed.count }
            try await rows.save(Profile(id: marker, name: "marker"), for: QueryKey("item", "marker"))
            for (index, member) in fleet.members.enumerated() {
                guard await member.line(startingWith: "marker", after: skipped[index], within: .seconds(30)) != nil
                else { throw FleetError.instanceDidNotStart(printed: ["no marker from instance \(index + 1)"]) }
            }
        }
        /// What each instance holds of `keys`, by asking it.
        func holdings(_ command: String, _ keys: [String]) async -> [[String: String]] {
            var all: [[String: String]] = []
            for member in fleet.members {
                let skipped = member.printed.count
                member.send(command)
                _ = await member.line(startingWith: command == "holdall 20" ? "holdall done" : "holds", after: skipped)
                var held: [String: String] = [:]
                for line in member.printed.dropFirst(skipped) where line.hasPrefix("holds ") {
                    let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                    if words.count == 3, keys.contains(words[1]) { held[words[1]] = words[2] }
                }
                all.append(held)
            }
            return all
        }

        var divergedRounds = 0
        for round in 0..<100 {
            let skipped = fleet.members.map { $0.printed.count }
            fleet.members[0].send("set counter first-\(round)")
            fleet.members[1].send("set counter second-\(round)")
            for index in 0..<2 {
                _ = await fleet.members[index].line(startingWith: "set counter", after: skipped[index])
            }
            try await quiesce()
            let row = try await rows.get(Profile.self, for: QueryKey("item", "counter"))?.value.name ?? "nothing"
            let held = await holdings("hold counter", ["counter"])
            if held[0]["counter"] != row || held[1]["counter"] != row { divergedRounds += 1 }
        }

        for (index, member) in fleet.members.enumerated() { member.send("mixed 2000 \(index + 1)") }
        for member in fleet.members { _ = await member.line(startingWith: "mixed done", within: .seconds(300)) }
        for member in fleet.members { member.send("readall 20") }
        for member in fleet.members { _ = await member.line(startingWith: "readall done", within: .seconds(60)) }
        try await quiesce()
        let keys = (0..<20).map(String.init)
        let held = await holdings("holdall 20", keys)
        var compared = 0
        var diverged = 0
        for key in keys {
            let row = try await rows.get(Profile.self, for: QueryKey("item", key))?.value.name ?? "nothing"
            for holding in held {
                guard let value = holding[key], value != "nothing" else { continue }
                compared += 1
                if value != row { diverged += 1 }
            }
        }
        if json {
            let summary: [String: Int] = [
                "rounds": 100, "divergedRounds": divergedRounds, "mixedOperations": 6_000, "keysCompared": compared,
                "keysDiverged": diverged,
            ]
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("two instances wrote one key at the same moment, 100 rounds: \(divergedRounds) rounds ended divergent")
        print("three instances made 2,000 random changes each over 20 keys, then read every key:")
        print("  \(compared) values held, \(diverged) different from their rows")
    }

    /// The server is frozen (SIGSTOP) for 8 seconds while three instances, each with requests waiting for it,
    /// are pinged every 100 ms and asked for a key they hold; then it goes on.
    static func hang(url: String, table: String, serverDirectory: String, json: Bool) async throws {
        let fleet = try await Fleet(count: 3, url: url, table: table, timeout: .seconds(2))
        defer { fleet.stop() }
        let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "scripts/postgres-local")
        func server(_ command: String) throws {
            let process = Process()
            process.executableURL = URL(filePath: "/bin/bash")
            process.arguments = [script.path, command, serverDirectory]
            try process.run()
            process.waitUntilExit()
        }
        for member in fleet.members { member.send("get 1") }
        for member in fleet.members { _ = await member.line(startingWith: "value 1") }
        let skipped = fleet.members.map { $0.printed.count }
        try server("freeze")
        let frozen = ContinuousClock.now
        for member in fleet.members { member.send("load 20") }
        var (pings, missed, memoryAnswers) = (0, 0, 0)
        var slowest = Duration.zero
        while ContinuousClock.now - frozen < .seconds(8) {
            pings += 1
            for member in fleet.members {
                let sent = ContinuousClock.now
                member.send("ping \(pings)")
                if await member.line(startingWith: "pong \(pings)", within: .seconds(1)) == nil {
                    missed += 1
                } else {
                    slowest = max(slowest, ContinuousClock.now - sent)
                }
                if pings % 10 == 0 {
                    let before = member.printed.count
                    member.send("memory 1")
                    if await member.line(startingWith: "memory 1 ok", after: before, within: .seconds(1)) != nil {
                        memoryAnswers += 1
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let lost = fleet.members.enumerated().filter { index, member in
            member.printed.dropFirst(skipped[index]).contains { $0.hasPrefix("lost") }
        }.count
        try server("thaw")
        var resumed = 0
        for (index, member) in fleet.members.enumerated()
        where await member.line(startingWith: "resumed", after: skipped[index], within: .seconds(20)) != nil {
            resumed += 1
        }
        let slowestMilliseconds = Int(
            slowest.components.seconds * 1_000 + slowest.components.attoseconds / 1_000_000_000_000_000)
        if json {
            let summary: [String: Int] = [
                "pings": pings * fleet.members.count, "missedPings": missed,
                "slowestPingMilliseconds": slowestMilliseconds,
                "memoryAnswers": memoryAnswers, "lost": lost, "resumed": resumed,
            ]
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("the server was frozen (SIGSTOP) for 8 s, with 20 requests of each instance waiting for it:")
        print(
            "  \(pings * fleet.members.count) pings, \(missed) unanswered, the slowest answered in \(slowestMilliseconds) ms"
        )
        print("  keys held in memory answered \(memoryAnswers) times")
        print("  \(lost) of 3 instances reported their listening connection lost; \(resumed) resumed after")
    }

    /// A row of another type (what an older deploy saved) for a key three instances then ask for: each
    /// skips it, one calls the upstream, and its value replaces the row.
    static func undecodable(url: String, table: String, json: Bool) async throws {
        let fleet = try await Fleet(count: 3, url: url, table: table)
        defer { fleet.stop() }
        let rows = try PostgresQueryCache(url: url, table: table)
        try await rows.save("a value of an older type", for: QueryKey("user", 77))
        for member in fleet.members { member.send("get 77") }
        var answered = 0
        for member in fleet.members
        where await member.line(startingWith: "value 77 user 77", within: .seconds(30)) != nil {
            answered += 1
        }
        let upstreamCalls = fleet.members.map { $0.count("upstream 77") }.reduce(0, +)
        let replaced = (try? await rows.get(Profile.self, for: QueryKey("user", 77))) != nil
        if json {
            let summary: [String: Any] = ["answered": answered, "upstreamCalls": upstreamCalls, "replaced": replaced]
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("a row of another type for user/77, asked by 3 instances:")
        print(
            "  \(answered) answered, \(upstreamCalls) upstream call(s), the row \(replaced ? "replaced" : "not replaced")"
        )
    }
}
