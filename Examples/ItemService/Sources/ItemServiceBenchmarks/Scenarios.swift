import Foundation

/// How much a run does: a full sitting, or a short one that proves the scenarios run.
struct Settings {
    let isQuick: Bool
    /// Turns of (r): its figures swing by a third from turn to turn, which three turns on a shared machine do
    /// not resolve.
    var dedupeTurns: Int { isQuick ? 1 : 10 }
    /// Turns of (q) per launch of its services, each variant's a slice of `sliceSeconds` per load: its line is
    /// 5 % wide, and one slice's requests/s on 2 shared cores swing by 10 % and more.
    var loadTurns: Int { isQuick ? 1 : 4 }
    /// Launches of (q)'s services: two processes of one binary, warmed alike and loaded in alternating turns,
    /// differ by up to 7 % for as long as they run; a figure of one launch per variant carried that difference.
    var loadLaunches: Int { isQuick ? 1 : 6 }
    var sliceSeconds: Int { isQuick ? 1 : 2 }
    var dedupeCallers: Int { isQuick ? 1_000 : 10_000 }
    /// How long each service of (s) churns in all: about 1,000,000 ids in a full sitting (about 3,500 new ids a
    /// second on 2 cores), in turns of `churnSliceSeconds`.
    var churnSeconds: Int { isQuick ? 3 : 290 }
    var churnSliceSeconds: Int { isQuick ? 1 : 5 }
    var outageSeconds: Double { isQuick ? 1.5 : 3 }
}

/// The service's arguments for a store, against `upstream` (on core `cpu` alone when given).
func service(_ upstream: Launched, _ arguments: [String], cpu: Int? = nil) throws -> Launched {
    try Launched("ItemService", ["--port", "0", "--upstream", upstream.url] + arguments, cpu: cpu)
}

/// Reads `ids` through the service at `url` once, `width` at a time (one at a time, the upstream's 20 ms made
/// each turn of (q) wait 20 s before it measured anything).
func warm(_ url: String, ids: Range<Int>, width: Int = 50, client: BenchmarkClient) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<width {
            group.addTask {
                for id in stride(from: ids.lowerBound + worker, to: ids.upperBound, by: width) {
                    _ = try await client.get("\(url)/items/\(id)")
                }
            }
        }
        try await group.waitForAll()
    }
}

/// Calls `body` with each of `services` in each of `turns` rounds, forwards in even rounds and backwards in odd
/// ones, for services that run side by side: whatever else the host runs falls on each alike, within seconds.
func takeTurns<Service>(_ turns: Int, _ services: [Service], _ body: (Int, Service) throws -> Void) rethrows {
    for turn in 0..<turns {
        for service in turn % 2 == 0 ? services : services.reversed() { try body(turn, service) }
    }
}

/// (q) Throughput and p99 latency over 1,000 fresh ids and on one hot id: Loft with its budget (telemetry and
/// devtools off, as the actor has neither) against the actor; Loft with both on beside it.
///
/// The three services run side by side on one core, each warmed once, and take short turns under wrk
/// (`takeTurns`). They are launched `loadLaunches` times, each time in another order (the variants rotated), so
/// that what one process gains or loses from where it landed in memory falls on every variant alike. Each
/// figure is the mean of a variant's turns over all launches (its p99, their median).
func loadScenario(_ settings: Settings, client: BenchmarkClient) async throws -> [Row] {
    let upstream = try Launched("Upstream", ["--port", "0", "--delay-ms", "20"])
    defer { upstream.stop() }
    let common = ["--stale-seconds", "3600", "--gc-seconds", "3600"]
    let variants: [(name: String, arguments: [String])] = [
        ("actor", ["--store", "actor"]),
        ("loft", ["--store", "loft", "--budget", "10000", "--telemetry", "off"]),
        ("loft, telemetry and devtools on", ["--store", "loft", "--budget", "10000", "--telemetry", "on"]),
    ]
    var fresh: [String: [Load]] = [:]
    var hot: [String: [Load]] = [:]
    for launch in 0..<settings.loadLaunches {
        let first = launch % variants.count
        let order = variants[first...] + variants[..<first]
        // The services on one core, wrk on the other: neither takes the other's time.
        var services: [(name: String, process: Launched)] = []
        defer { services.forEach { $0.process.stop() } }
        for variant in order {
            let running = try service(upstream, common + variant.arguments, cpu: 1)
            services.append((variant.name, running))
            try await warm(running.url, ids: 0..<1_000, client: client)
        }
        try takeTurns(settings.loadTurns, services) { turn, service in
            let (name, url) = (service.name, service.process.url)
            let spread = try wrk(
                url, seconds: settings.sliceSeconds, script: itemsScript(first: 0, count: 1_000), cpu: 0)
            let one = try wrk("\(url)/items/7", seconds: settings.sliceSeconds, cpu: 0)
            guard spread.errors == 0, one.errors == 0 else {
                throw BenchmarkError.failed("(q) \(name): errors")
            }
            // Each turn's figures on the standard error: how far they swing is what the mean hides.
            FileHandle.standardError.write(
                Data(
                    "(q) launch \(launch), turn \(turn), \(name): fresh ids \(Int(spread.requestsPerSecond)) req/s, hot id \(Int(one.requestsPerSecond)) req/s\n"
                        .utf8))
            fresh[name, default: []].append(spread)
            hot[name, default: []].append(one)
        }
    }
    var rows: [Row] = []
    for (label, turns) in [("1,000 fresh ids", fresh), ("one hot id", hot)] {
        guard let actor = turns["actor"].map(Load.mean), let loft = turns["loft"].map(Load.mean),
            let full = turns["loft, telemetry and devtools on"].map(Load.mean)
        else { continue }
        rows.append(
            .ratio(
                "(q) \(label): requests/s", loft.requestsPerSecond, actor.requestsPerSecond, unit: requestsPerSecond,
                baselineName: "actor", atLeast: 0.95))
        rows.append(
            .ratio("(q) \(label): p99", loft.p99, actor.p99, unit: milliseconds, baselineName: "actor", atMost: 1.2))
        rows.append(
            .ratio(
                "(q) \(label), telemetry and devtools on: requests/s", full.requestsPerSecond, actor.requestsPerSecond,
                unit: requestsPerSecond, baselineName: "actor"))
    }
    return rows
}

/// (r) Many requests at once (over 1,000 connections) for one cold id whose upstream takes 20 ms: one upstream
/// call, and the time until every request is answered, against the actor's, turns taken.
func dedupeScenario(_ settings: Settings, client: BenchmarkClient) async throws -> [Row] {
    let upstream = try Launched("Upstream", ["--port", "0", "--delay-ms", "20"])
    defer { upstream.stop() }
    var best: [String: Double] = [:]
    for turn in 0..<settings.dedupeTurns {
        for store in turn % 2 == 0 ? ["actor", "loft"] : ["loft", "actor"] {
            // Fresh for the whole burst: every request after the one fetch is a hit.
            let running = try service(upstream, ["--store", store, "--telemetry", "off", "--stale-seconds", "3600"])
            defer { running.stop() }
            _ = try await client.get("\(running.url)/health")
            _ = try await client.send(.POST, "\(upstream.url)/stats/reset")
            let id = 424_242 + turn
            let url = "\(running.url)/items/\(id)"
            let started = ContinuousClock.now
            let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<settings.dedupeCallers {
                    group.addTask { try await client.get(url).body.contains("\"id\":\(id)") }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            let elapsed = started.duration(to: .now)
            let calls = try await client.get("\(upstream.url)/calls/\(id)").body
            guard answered == settings.dedupeCallers, calls == "1" else {
                throw BenchmarkError.failed("(r) \(store): \(answered) answered, \(calls) upstream calls")
            }
            let seconds = Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)
            best[store] = min(best[store] ?? .infinity, seconds)
        }
    }
    guard let actor = best["actor"], let loft = best["loft"] else { return [] }
    return [
        .ratio(
            "(r) \(settings.dedupeCallers.formatted()) requests at once, one cold id: all answered (1 upstream call)",
            loft, actor,
            unit: milliseconds, baselineName: "actor", atMost: 1.2)
    ]
}

/// (s) Churn: ids never asked before, with a budget of 10,000 entries: the resident size at the end against the
/// size after the first 20,000 ids, and the throughput against the same service without a budget.
///
/// The two services run side by side, each warmed with its first 20,000 ids, and take turns of
/// `churnSliceSeconds` under wrk (`takeTurns`), `churnSeconds` each in all, every turn on ids of its own. Each
/// requests/s is the mean of a service's turns.
func churnScenario(_ settings: Settings, client: BenchmarkClient) async throws -> [Row] {
    let upstream = try Launched("Upstream", ["--port", "0", "--delay-ms", "0"])
    defer { upstream.stop() }
    let first = 20_000
    // More ids than a turn can ask for (a turn of 5 s at 100,000 requests/s asks for 500,000).
    let idsPerTurn = 10_000_000
    var services: [ChurnedService] = []
    defer { services.forEach { $0.process.stop() } }
    for budget in ["10000", "none"] {
        let running = ChurnedService(
            budget: budget, try service(upstream, ["--store", "loft", "--budget", budget, "--telemetry", "off"]))
        services.append(running)
        try await warm(running.process.url, ids: 0..<first, width: 64, client: client)
        running.early = running.process.residentBytes
    }
    try takeTurns(max(1, settings.churnSeconds / settings.churnSliceSeconds), services) { turn, service in
        service.turns.append(
            try wrk(
                service.process.url, seconds: settings.churnSliceSeconds,
                script: distinctItemsScript(first: first + turn * idsPerTurn)))
    }
    guard let bounded = services.first(where: { $0.budget == "10000" }),
        let unbounded = services.first(where: { $0.budget == "none" })
    else { return [] }
    let (boundedEnd, unboundedEnd) = (bounded.process.residentBytes, unbounded.process.residentBytes)
    let asked = bounded.turns.map { $0.requestsPerSecond * Double(settings.churnSliceSeconds) }.reduce(0, +)
    let ids = Int(asked) + first
    return [
        .ratio(
            "(s) \(ids.formatted()) distinct ids, budget 10,000: resident size at the end", Double(boundedEnd),
            Double(bounded.early), unit: megabytes, baselineName: "after the first 20,000 ids", atMost: 1.2),
        .ratio(
            "(s) distinct ids, budget 10,000: requests/s", Load.mean(of: bounded.turns).requestsPerSecond,
            Load.mean(of: unbounded.turns).requestsPerSecond, unit: requestsPerSecond, baselineName: "without a budget",
            atLeast: 0.9),
        Row(
            scenario: "(s) without a budget: resident size at the end", figure: megabytes(Double(unboundedEnd)),
            baseline: "\(megabytes(Double(unbounded.early))) after the first 20,000 ids", ratio: nil, target: "—",
            holds: true),
    ]
}

/// A service of (s): its budget, its process, its resident size after the first ids, and its turns' figures.
final class ChurnedService {
    let budget: String
    let process: Launched
    var early = 0
    var turns: [Load] = []

    init(budget: String, _ process: Launched) {
        self.budget = budget
        self.process = process
    }
}

/// (t) The upstream failing (HTTP 500) or hanging (10 s) under load: items with data keep being served (stale),
/// only items without data answer errors, the upstream sees at most one call per key per attempt, and fresh
/// data comes within 1 s of the upstream's return.
func outageScenario(_ settings: Settings, client: BenchmarkClient) async throws -> [Row] {
    let upstream = try Launched("Upstream", ["--port", "0", "--delay-ms", "20", "--hang-seconds", "10"])
    defer { upstream.stop() }
    let running = try service(
        upstream,
        ["--store", "loft", "--telemetry", "on", "--stale-seconds", "2", "--upstream-timeout-ms", "500"])
    defer { running.stop() }
    for id in 0..<100 { _ = try await client.get("\(running.url)/items/\(id)") }
    var rows: [Row] = []
    for mode in ["fail", "hang"] {
        _ = try await client.send(.POST, "\(upstream.url)/stats/reset")
        let attemptsBefore = try await attempts(client, running.url)
        _ = try await client.send(.POST, "\(upstream.url)/mode/\(mode)")
        let until = ContinuousClock.now + .milliseconds(Int(settings.outageSeconds * 1_000))
        let service = running.url
        let counts = try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<32 {
                group.addTask {
                    // [with data: answered 200, asked; without data: errors, asked]
                    var counts = [0, 0, 0, 0]
                    var id = worker
                    while ContinuousClock.now < until {
                        id = (id + 37) % 200
                        let status = try await client.get("\(service)/items/\(id)").status
                        if id < 100 {
                            counts[1] += 1
                            if status == 200 { counts[0] += 1 }
                        } else {
                            counts[3] += 1
                            if status != 200 { counts[2] += 1 }
                        }
                    }
                    return counts
                }
            }
            return try await group.reduce(into: [0, 0, 0, 0]) { total, counts in
                for index in total.indices { total[index] += counts[index] }
            }
        }
        // Renamed at the upstream during the outage; the service must show it within 1 s of the return.
        let name = "fresh after \(mode)"
        _ = try await client.send(.PUT, "\(upstream.url)/items/5", body: #"{"name":"\#(name)"}"#)
        _ = try await client.send(.POST, "\(upstream.url)/mode/normal")
        let returned = ContinuousClock.now
        while try await !client.get("\(running.url)/items/5").body.contains(name) {
            guard returned.duration(to: .now) < .seconds(10) else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let recovery = returned.duration(to: .now)
        // The refreshes still retrying settle on the upstream's answers; then every call is counted.
        try await Task.sleep(for: .seconds(1))
        let stats = try await client.get("\(upstream.url)/stats").body
        let calls = Int(stats.split(separator: ",").first?.split(separator: ":").last ?? "") ?? -1
        let made = try await attempts(client, running.url) - attemptsBefore
        let recoverySeconds = Double(recovery.components.seconds) + Double(recovery.components.attoseconds) / 1e18
        let label = mode == "fail" ? "answering 500" : "hanging 10 s"
        rows.append(
            Row(
                scenario: "(t) upstream \(label): items with data served", figure: "\(counts[0]) of \(counts[1])",
                baseline: "every request", ratio: nil, target: "all", holds: counts[0] == counts[1] && counts[1] > 0))
        rows.append(
            Row(
                scenario: "(t) upstream \(label): items without data answered errors",
                figure: "\(counts[2]) of \(counts[3])", baseline: "every request", ratio: nil, target: "all",
                holds: counts[2] == counts[3]))
        rows.append(
            Row(
                scenario: "(t) upstream \(label): upstream calls (one per fetch of a key, at most one a request)",
                figure: "\(calls)", baseline: "\(made) fetches, \(counts[1] + counts[3]) requests", ratio: nil,
                target: "≤ both", holds: calls >= 0 && calls <= made && calls <= counts[1] + counts[3]))
        rows.append(
            Row(
                scenario: "(t) upstream \(label): fresh data after its return", figure: milliseconds(recoverySeconds),
                baseline: "—", ratio: nil, target: "≤ 1 s", holds: recoverySeconds <= 1))
    }
    return rows
}

/// The attempts the service's fetches made so far: fetches ended plus retries, read from its `/metrics`.
func attempts(_ client: BenchmarkClient, _ service: String) async throws -> Int {
    let metrics = try await client.get("\(service)/metrics").body
    return metrics.split(separator: "\n").reduce(0) { total, line in
        guard line.hasPrefix("loft_fetches_total") || line.hasPrefix("loft_fetch_retries_total"),
            let value = line.split(separator: " ").last.flatMap({ Double($0) })
        else { return total }
        return total + Int(value)
    }
}
