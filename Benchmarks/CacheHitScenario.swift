import Loft
import Signals

/// (d) `getQueryData` of a present key, against a `Dictionary<QueryKey, Int>` lookup behind the project's
/// lock type. Time per read.
func cacheHitScenario(_ settings: Settings) -> Row {
    let reads = settings.iterations(1_000_000)
    let client = QueryClient()
    let keys = (0..<1_000).map { QueryKey("item", $0) }
    for (index, key) in keys.enumerated() { client.setQueryData(index, for: key) }
    let key = keys[500]
    let counter = Counter()
    let loft = measure(repetitions: settings.repetitions, iterations: reads) {
        for _ in 0..<reads {
            if let value = try? client.getQueryData(key, as: Int.self), value == 500 { counter.bump() }
        }
    }
    precondition(counter.value == settings.repetitions * reads, "every read hit the cache and saw the value")
    let dictionary = Locked<[QueryKey: Int]>(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
    let baseline = measure(repetitions: settings.repetitions, iterations: reads) {
        for _ in 0..<reads {
            if let value = dictionary.withLock({ $0[key] }), value == 500 { counter.bump() }
        }
    }
    blackHole(counter.value)
    return Row(
        scenario: "(d) cache-hit read (getQueryData)", baselineName: "locked Dictionary<QueryKey, Int> lookup",
        nanoseconds: loft, baselineNanoseconds: baseline, target: .ratio(3))
}
