import Loft

/// (f) 10,000 consumers observing one key, one `setQueryData`: time until every consumer has the new state,
/// against calling 10,000 closures.
func fanOutQueryScenario(_ settings: Settings) -> Row {
    let observers = 10_000
    let updates = settings.iterations(200)
    let client = QueryClient()
    client.setQueryData(0, for: "shared")
    let consumers = (0..<observers).map { _ in Query<Void, Int>.Consumer(key: "shared", client: client) }
    var next = 0
    let loft = withExtendedLifetime(consumers) {
        defer { precondition(consumers.allSatisfy { $0.state.value == next }, "every consumer has the last value") }
        return measure(repetitions: settings.repetitions, iterations: updates) {
            for _ in 0..<updates {
                next += 1
                client.setQueryData(next, for: "shared")
            }
        }
    }
    let counter = Counter()
    let closures: [@Sendable (Int) -> Void] = (0..<observers).map { _ in { _ in counter.bump() } }
    let baseline = measure(repetitions: settings.repetitions, iterations: updates) {
        for value in 0..<updates {
            for closure in closures { closure(value) }
        }
    }
    blackHole(counter.value)
    return Row(
        scenario: "(f) setQueryData to 10,000 observers", baselineName: "10,000 closure calls",
        nanoseconds: loft, baselineNanoseconds: baseline, target: .ratio(3))
}
