import Loft

/// (a) One `send` on a `PassthroughSubject` with 10,000 subscribers, against calling 10,000 closures from an
/// array. Time per send.
func fanOutScenario(_ settings: Settings) -> Row {
    let subscribers = 10_000
    let sends = settings.iterations(2_000)
    let counter = Counter()

    let subject = PassthroughSubject<Int, Never>()
    let subscriptions = (0..<subscribers).map { _ in subject.sink { _ in counter.bump() } }
    let loft = withExtendedLifetime(subscriptions) {
        defer {
            precondition(subject.subscriberCount == subscribers, "the subscribers must stay subscribed while measured")
            precondition(
                counter.value == settings.repetitions * sends * subscribers, "every subscriber got every value")
        }
        return measure(repetitions: settings.repetitions, iterations: sends) {
            for value in 0..<sends { subject.send(value) }
        }
    }

    let closures: [@Sendable (Int) -> Void] = (0..<subscribers).map { _ in { _ in counter.bump() } }
    let baseline = measure(repetitions: settings.repetitions, iterations: sends) {
        for value in 0..<sends {
            for closure in closures { closure(value) }
        }
    }
    blackHole(counter.value)
    return Row(
        scenario: "(a) send to 10,000 subscribers", baselineName: "10,000 closure calls",
        nanoseconds: loft, baselineNanoseconds: baseline, target: .ratio(3))
}
