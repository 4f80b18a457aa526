import Foundation
import Loft

/// (n) `setQueryData` on 1,000 persisted keys of a client with a `JSONFileQueryCache` (flushed saves), against
/// the same calls on a client without a cache: what the caller (often the main thread) pays now that saves are
/// written behind it. Each value is read back through `getQueryData`; between repetitions `flush()` writes
/// them, and that drain, per value, is shown beside `JSONFileQueryCache.save` called directly.
func writeBehindScenario(_ settings: Settings) -> [Row] {
    let count = settings.iterations(1_000)
    let keys = (0..<count).map { QueryKey("account", $0) }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loft-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let disk = QueryClient(cache: JSONFileQueryCache(directory: folder.appendingPathComponent("client")))
    let memory = QueryClient()
    for client in [disk, memory] {
        runBlocking {
            for (index, key) in keys.enumerated() {
                await client.prefetchQuery(key) { Profile(id: index, name: "user \(index)", followers: 0) }
            }
            await client.flush()
        }
    }

    func setAll(_ client: QueryClient, revision: Int) {
        for (index, key) in keys.enumerated() {
            client.setQueryData(Profile(id: index, name: "user \(index)", followers: revision), for: key)
        }
    }
    func check(_ client: QueryClient, revision: Int) {
        let last = try? client.getQueryData(keys[count - 1], as: Profile.self)
        precondition(last?.followers == revision, "every setQueryData is read back")
    }

    let clock = ContinuousClock()
    var (withDisk, without, drain, direct) = (Double.infinity, Double.infinity, Double.infinity, Double.infinity)
    for repetition in 1...settings.repetitions {
        without = min(without, measure(repetitions: 1, iterations: count) { setAll(memory, revision: repetition) })
        check(memory, revision: repetition)
        let start = clock.now
        withDisk = min(withDisk, measure(repetitions: 1, iterations: count) { setAll(disk, revision: repetition) })
        check(disk, revision: repetition)
        runBlocking { await disk.flush() }
        drain = min(drain, nanoseconds(clock.now - start) / Double(count))
        let cache = JSONFileQueryCache(directory: folder.appendingPathComponent("direct"))
        let now = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)
        direct = min(
            direct,
            measure(repetitions: 1, iterations: count) {
                for (index, key) in keys.enumerated() {
                    let account = Profile(id: index, name: "user \(index)", followers: repetition)
                    try? cache.save(account, for: key, savedAt: now, expiresAt: nil)
                }
            })
    }
    let saved = try? JSONFileQueryCache(directory: folder.appendingPathComponent("client"))
        .get(for: keys[count - 1], as: Profile.self)
    precondition(saved?.followers == settings.repetitions, "flush() wrote the latest value")
    return [
        Row(
            scenario: "(n) setQueryData, persisted key (disk cache)", baselineName: "setQueryData, no cache",
            nanoseconds: withDisk, baselineNanoseconds: without, target: .ratio(2)),
        Row(
            scenario: "(n) … then flush() until on disk, per value", baselineName: "JSONFileQueryCache.save direct",
            nanoseconds: drain, baselineNanoseconds: direct, target: .none),
    ]
}
