import Foundation

/// What one run of wrk measured.
struct Load {
    var requestsPerSecond: Double
    /// The 99th percentile of latency, in seconds.
    var p99: Double
    var errors: Int

    /// Turns of equal length together: the mean of their requests per second, the median of their p99s, every
    /// error.
    static func mean(of turns: [Load]) -> Load {
        let p99s = turns.map(\.p99).sorted()
        return Load(
            requestsPerSecond: turns.map(\.requestsPerSecond).reduce(0, +) / Double(max(1, turns.count)),
            p99: p99s.isEmpty ? 0 : p99s[p99s.count / 2], errors: turns.map(\.errors).reduce(0, +))
    }
}

/// Runs wrk against `url` (with a Lua `script` when given; on core `cpu` alone when given) and reads requests
/// per second, p99 latency and errors (non-2xx answers and socket errors) from what it prints.
func wrk(
    _ url: String, connections: Int = 64, threads: Int = 2, seconds: Int, script: String? = nil, cpu: Int? = nil
) throws -> Load {
    var arguments = ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency", "--timeout", "10s"]
    var scriptFile: URL?
    if let script {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wrk-\(UUID().uuidString).lua")
        try script.write(to: file, atomically: true, encoding: .utf8)
        arguments += ["-s", file.path]
        scriptFile = file
    }
    defer { scriptFile.map { try? FileManager.default.removeItem(at: $0) } }
    let process = Process()
    if let cpu {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-c", "\(cpu)", "/usr/bin/wrk"] + arguments + [url]
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = arguments + [url]
    }
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let rps = figure(after: "Requests/sec:", in: text), let p99 = latency(percentile: "99%", in: text) else {
        throw BenchmarkError.wrk(text)
    }
    let non2xx = Int(figure(after: "Non-2xx or 3xx responses:", in: text) ?? 0)
    let socket = text.split(separator: "\n").first { $0.contains("Socket errors:") }.map { line in
        line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.reduce(0, +)
    }
    return Load(requestsPerSecond: rps, p99: p99, errors: non2xx + (socket ?? 0))
}

private func figure(after label: String, in text: String) -> Double? {
    guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }) else { return nil }
    return Double(line.replacingOccurrences(of: label, with: "").trimmingCharacters(in: .whitespaces))
}

/// A latency wrk prints as `99%  1.23ms` (us, ms or s), in seconds.
private func latency(percentile: String, in text: String) -> Double? {
    guard
        let line = text.split(separator: "\n").first(where: {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix(percentile)
        })
    else { return nil }
    guard let value = line.split(separator: " ").last.map(String.init) else { return nil }
    for (unit, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0)] where value.hasSuffix(unit) {
        return Double(value.dropLast(unit.count)).map { $0 * scale }
    }
    return nil
}

/// A wrk script that numbers its threads 0, 1, … (`id`) and asks for `/items/ITEM`, with ITEM computed by the
/// Lua expression `item` from `id` and `next_id` (0, 1, … per thread).
private func numberedThreadsScript(item: String) -> String {
    """
    local counter = 0
    function setup(thread)
        thread:set("id", counter)
        counter = counter + 1
    end
    local next_id = 0
    function request()
        local item = \(item)
        next_id = next_id + 1
        return wrk.format("GET", "/items/" .. item)
    end
    """
}

/// A wrk script that asks for `/items/ID` with IDs cycling through `count` values from `first`, each thread
/// through its own share.
func itemsScript(first: Int, count: Int, threads: Int = 2) -> String {
    let share = max(1, count / threads)
    return numberedThreadsScript(item: "\(first) + id * \(share) + (next_id % \(share))")
}

/// A wrk script that asks for `/items/ID` with IDs from `first` on, never the same twice (each of two threads
/// takes every other one).
func distinctItemsScript(first: Int) -> String {
    numberedThreadsScript(item: "\(first) + next_id * 2 + id")
}
