import Loft
import Signals

/// (l) `query.state.value` of a live query, what a view reads on every render, against reading a stored
/// `QueryState<Int>` behind the project's lock type. Time per read.
func stateReadScenario(_ settings: Settings) -> Row {
    let reads = settings.iterations(1_000_000)
    let client = QueryClient()
    client.setQueryData(7, for: "read")
    let query = Query<Void, Int>(key: "read", client: client) { 7 }
    precondition(query.state.value == 7, "the query shows the cached value")
    let counter = Counter()
    let loft = withExtendedLifetime(query) {
        measure(repetitions: settings.repetitions, iterations: reads) {
            for _ in 0..<reads {
                if query.state.value == 7 { counter.bump() }
            }
        }
    }
    let stored = Locked<QueryState<Int>>(.succeed(7))
    let baseline = measure(repetitions: settings.repetitions, iterations: reads) {
        for _ in 0..<reads {
            if stored.withLock({ $0 }).value == 7 { counter.bump() }
        }
    }
    blackHole(counter.value)
    return Row(
        scenario: "(l) query.state read of a live query", baselineName: "locked read of a stored QueryState",
        nanoseconds: loft, baselineNanoseconds: baseline, target: .ratio(2))
}
