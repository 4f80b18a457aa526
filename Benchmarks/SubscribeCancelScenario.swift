import Loft

/// (c) Subscribe + cancel of one subscriber on a subject that already has 10,000. The target is absolute
/// (under 1 µs); the baseline is an insert + remove in a dictionary behind the project's kind of lock.
func subscribeCancelScenario(_ settings: Settings) -> Row {
    let iterations = settings.iterations(200_000)
    let subject = PassthroughSubject<Int, Never>()
    let existing = (0..<10_000).map { _ in subject.sink { _ in } }
    let loft = withExtendedLifetime(existing) {
        defer {
            precondition(subject.subscriberCount == existing.count, "the 10,000 must stay subscribed while measured")
        }
        return measure(repetitions: settings.repetitions, iterations: iterations) {
            for _ in 0..<iterations {
                let subscription = subject.sink { _ in }
                subscription.cancel()
            }
        }
    }

    let dictionary = LockedDictionary()
    for key in 0..<10_000 { dictionary.insert(key) }
    let baseline = measure(repetitions: settings.repetitions, iterations: iterations) {
        for key in 0..<iterations {
            dictionary.insert(10_000 + key)
            dictionary.remove(10_000 + key)
        }
    }
    return Row(
        scenario: "(c) subscribe + cancel beside 10,000", baselineName: "locked dictionary insert + remove",
        nanoseconds: loft, baselineNanoseconds: baseline, target: .under(nanoseconds: 1_000))
}
