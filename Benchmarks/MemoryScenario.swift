import Foundation
import Loft

/// The resident size of this process, in bytes (Linux: `/proc/self/statm`; nil elsewhere).
private func residentBytes() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
}

/// (i) Memory per entry for 100,000 small entries, from the resident size before and after: the baseline is a
/// plain `[QueryKey: Int]`; then `InMemoryQueryCache`, the client's cache written with `setQueryData`, and the
/// client's cache as a service fills it: entries made by `fetchQuery` that nobody observes (each keeps its
/// fetcher, for a later refetch, and its collection alarm). It runs in a child process (this
/// executable with `--memory-probe`), so that no other scenario's freed memory is reused (which would hide
/// growth) and no other scenario runs on the heap it leaves.
func memoryScenario(_ settings: Settings) -> [Row] {
    let count = 100_000 / max(1, settings.scale / 2)
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    probe.arguments = ["--memory-probe", "\(count)"]
    let output = Pipe()
    probe.standardOutput = output
    do {
        try probe.run()
    } catch {
        print("(i) memory: cannot start the probe process: \(error)")
        return []
    }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    probe.waitUntilExit()
    let figures = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    guard figures.count == 4 else {
        print("(i) memory: resident size is only read on Linux; skipped.")
        return []
    }
    let (baseline, cache, client, fetched) = (figures[0], figures[1], figures[2], figures[3])
    return [
        Row(
            scenario: "(i) InMemoryQueryCache, bytes per entry", baselineName: "[QueryKey: Int]",
            nanoseconds: cache, baselineNanoseconds: baseline, target: .underBytes(1024), unit: .bytes),
        Row(
            scenario: "(i) QueryClient cache, bytes per entry", baselineName: "[QueryKey: Int]",
            nanoseconds: client, baselineNanoseconds: baseline, target: .underBytes(1024), unit: .bytes),
        Row(
            scenario: "(i) entries made by fetchQuery, unobserved, bytes per key", baselineName: "[QueryKey: Int]",
            nanoseconds: fetched, baselineNanoseconds: baseline, target: .underBytes(400), unit: .bytes),
    ]
}

/// The child of (i): prints the bytes per entry of the dictionary, the in-memory cache and the client, each
/// measured from the resident size after the previous one (all stay alive until the end).
func memoryProbe(count: Int) {
    let keys = (0..<count).map { QueryKey("entry", $0) }
    guard let start = residentBytes() else { return }
    var dictionary: [QueryKey: Int] = [:]
    for (index, key) in keys.enumerated() { dictionary[key] = index }
    let afterDictionary = residentBytes() ?? start

    let cache = InMemoryQueryCache(capacity: count)
    let savedAt = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)
    for (index, key) in keys.enumerated() { try? cache.save(index, for: key, savedAt: savedAt, expiresAt: nil) }
    let afterCache = residentBytes() ?? afterDictionary

    let client = QueryClient(scheduler: TestScheduler())
    for (index, key) in keys.enumerated() { client.setQueryData(index, for: key) }
    let afterClient = residentBytes() ?? afterCache

    let server = QueryClient(scheduler: TestScheduler())
    runBlocking {
        for (index, key) in keys.enumerated() { _ = try? await server.fetchQuery(key) { index } }
    }
    let afterServer = residentBytes() ?? afterClient

    blackHole((dictionary.count, cache.count, client, server))
    let perEntry = { (from: Double, to: Double) in max(0, to - from) / Double(count) }
    print(
        perEntry(start, afterDictionary), perEntry(afterDictionary, afterCache), perEntry(afterCache, afterClient),
        perEntry(afterClient, afterServer))
}
