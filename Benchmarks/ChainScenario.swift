import Loft

/// (b) A `map` + `filter` + `sink` chain, per event, against the same three closures called directly.
/// The events come from a sequence publisher so that the figure is the chain's own cost per event.
func chainScenario(_ settings: Settings) -> Row {
    let events = settings.iterations(5_000_000)
    let counter = Counter()
    let transform: @Sendable (Int) -> Int = { $0 &* 3 }
    let isIncluded: @Sendable (Int) -> Bool = { $0 & 1 == 0 }
    let receive: @Sendable (Int) -> Void = { _ in counter.bump() }

    let source = (0..<events).publisher
    let loft = measure(repetitions: settings.repetitions, iterations: events) {
        let subscription = source.map(transform).filter(isIncluded).sink(receiveValue: receive)
        blackHole(subscription)
    }

    let baseline = measure(repetitions: settings.repetitions, iterations: events) {
        for event in 0..<events {
            let mapped = callOpaque(transform, event)
            if callOpaque(isIncluded, mapped) { callOpaque(receive, mapped) }
        }
    }
    blackHole(counter.value)
    return Row(
        scenario: "(b) map + filter + sink, per event", baselineName: "3 direct closure calls",
        nanoseconds: loft, baselineNanoseconds: baseline, target: .ratio(3))
}

/// Calls `closure` without letting the optimiser see through it, as a subscriber chain cannot either.
@inline(never)
func callOpaque<Input, Output>(_ closure: (Input) -> Output, _ input: Input) -> Output {
    closure(input)
}
