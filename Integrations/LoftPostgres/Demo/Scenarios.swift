import Foundation

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
}
