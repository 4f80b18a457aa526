import Loft

/// (g) `invalidateQueries(["item", 42])` among 100,000 keys `["item", i / 1000, i]`, against invalidating the
/// matching keys one by one with `exact: true`; a scan of all 100,000 keys is printed beside it. (With that
/// formula the prefix matches 1,000 keys: i / 1000 == 42 for i in 42,000..<43,000.)
func invalidationScenario(_ settings: Settings) -> [Row] {
    let client = QueryClient()
    let keys = (0..<100_000).map { QueryKey("item", $0 / 1_000, $0) }
    for key in keys { client.setQueryData(0, for: key) }
    let matching = keys.filter { $0.hasPrefix(["item", 42]) }
    precondition(matching.count == 1_000)
    let repetitions = settings.iterations(50)
    let prefix = measure(repetitions: settings.repetitions, iterations: repetitions) {
        for _ in 0..<repetitions { client.invalidateQueries(["item", 42]) }
    }
    precondition(matching.allSatisfy { client.existingEntry(for: $0)?.snapshot.isInvalidated == true })
    precondition(client.existingEntry(for: ["item", 41, 41_999])?.snapshot.isInvalidated == false)
    let oneByOne = measure(repetitions: settings.repetitions, iterations: repetitions) {
        for _ in 0..<repetitions {
            for key in matching { client.invalidateQueries(key, exact: true) }
        }
    }
    let scans = max(1, repetitions / 20)
    let scan = measure(repetitions: settings.repetitions, iterations: scans) {
        for _ in 0..<scans { blackHole(keys.filter { $0.hasPrefix(["item", 42]) }.count) }
    }
    return [
        Row(
            scenario: "(g) invalidateQueries 1,000 of 100,000", baselineName: "1,000 exact invalidations",
            nanoseconds: prefix, baselineNanoseconds: oneByOne, target: .ratio(10)),
        Row(
            scenario: "(g) …the same, against a full scan", baselineName: "scan of 100,000 keys (no work)",
            nanoseconds: prefix, baselineNanoseconds: scan, target: .ratio(0.5)),
    ]
}
