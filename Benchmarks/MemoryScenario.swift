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
/// plain `[QueryKey: Int]`; then `InMemoryQueryCache` and the client's cache. Everything stays alive until the
/// last reading so that no structure reuses memory another freed. Runs first (before other scenarios free
/// memory that the allocator would reuse).
func memoryScenario(_ settings: Settings) -> [Row] {
    let count = 100_000 / max(1, settings.scale / 2)
    let keys = (0..<count).map { QueryKey("entry", $0) }
    guard let start = residentBytes() else {
        print("(i) memory: resident size is only read on Linux; skipped.")
        return []
    }
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

    blackHole((dictionary.count, cache.count, client))
    let perEntry = { (from: Double, to: Double) in max(0, to - from) / Double(count) }
    let baseline = perEntry(start, afterDictionary)
    return [
        Row(
            scenario: "(i) InMemoryQueryCache, bytes per entry", baselineName: "[QueryKey: Int]",
            nanoseconds: perEntry(afterDictionary, afterCache), baselineNanoseconds: baseline,
            target: .underBytes(1024), unit: .bytes),
        Row(
            scenario: "(i) QueryClient cache, bytes per entry", baselineName: "[QueryKey: Int]",
            nanoseconds: perEntry(afterCache, afterClient), baselineNanoseconds: baseline,
            target: .underBytes(1024), unit: .bytes),
    ]
}
