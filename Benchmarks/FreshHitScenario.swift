import Loft
import Signals

/// (u) A request handler's read of fresh data: `fetchQuery` with a `staleTime` on a key whose data is fresh, from
/// one task and from 50 at once, against `getQueryData` (the same read without the freshness rule or the
/// async call) and against the cache a server developer writes instead: an actor holding a dictionary of
/// values with the instant each was fetched, and the tasks in flight. Time per read; the three take turns.
func freshHitScenario(_ settings: Settings) -> [Row] {
    let reads = settings.iterations(200_000)
    let client = QueryClient()
    let keys = (0..<1_000).map { QueryKey("item", $0) }
    let actorCache = ActorCache()
    runBlocking {
        for (index, key) in keys.enumerated() {
            _ = try? await client.fetchQuery(key, staleTime: .infinity) { index }
            _ = try? await actorCache.value(for: key, maxAge: .seconds(3_600)) { index }
        }
    }
    let key = keys[500]
    let rows = [1, 50].flatMap { tasks -> [Row] in
        let perTask = max(1, reads / tasks)
        let reads: [@Sendable () async -> Bool] = [
            { (try? await client.fetchQuery(key, staleTime: .infinity) { -1 }) == 500 },
            { (try? client.getQueryData(key, as: Int.self)) == 500 },
            { (try? await actorCache.value(for: key, maxAge: .seconds(3_600)) { -1 }) == 500 },
        ]
        let best = bestInTurns(
            settings.repetitions, reads.map { read in { timePerRead(tasks: tasks, reads: perTask, read) } })
        let (fetch, get, actor) = (best[0], best[1], best[2])
        let label = tasks == 1 ? "one task" : "\(tasks) tasks"
        return [
            Row(
                scenario: "(u) fresh fetchQuery, \(label)", baselineName: "getQueryData, \(label)",
                nanoseconds: fetch, baselineNanoseconds: get, target: .ratio(2)),
            Row(
                scenario: "(u) fresh fetchQuery, \(label)", baselineName: "an actor's dictionary hit, \(label)",
                nanoseconds: fetch, baselineNanoseconds: actor, target: .ratio(1.5)),
        ]
    }
    return rows
}

/// The time per read of `tasks` tasks each making `reads` reads; every read must see the value.
private func timePerRead(tasks: Int, reads: Int, _ read: @escaping @Sendable () async -> Bool) -> Double {
    let (elapsed, hits) = runBlocking { () -> (Duration, Int) in
        let start = ContinuousClock.now
        let hits = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var hits = 0
                    for _ in 0..<reads where await read() { hits += 1 }
                    return hits
                }
            }
            return await group.reduce(0, +)
        }
        return (ContinuousClock.now - start, hits)
    }
    precondition(hits == tasks * reads, "every read saw the value")
    return Double(elapsed.nanoseconds) / Double(tasks * reads)
}

/// The read-through cache a server developer writes instead of a library: values with the instant they were
/// fetched, and one task in flight per key that concurrent callers share.
actor ActorCache {
    private var values: [QueryKey: (value: Int, fetchedAt: ContinuousClock.Instant)] = [:]
    private var inFlight: [QueryKey: Task<Int, any Error>] = [:]

    func value(
        for key: QueryKey, maxAge: Duration, fetch: @escaping @Sendable () async throws -> Int
    ) async throws -> Int {
        if let cached = values[key], cached.fetchedAt.duration(to: .now) < maxAge { return cached.value }
        if let running = inFlight[key] { return try await running.value }
        let task = Task { try await fetch() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        let value = try await task.value
        values[key] = (value, .now)
        return value
    }
}
