import Loft
import Observation

/// (m) 10,000 consumers of one key, each read inside `withObservationTracking` (what SwiftUI does for a view
/// that reads `consumer.state`); one `setQueryData`: time until every observer's `onChange` ran, against the
/// least any Observation-based model pays: 10,000 observable objects (what the `@Observable` macro writes),
/// each tracked the same way, each changed once. Each observer tracks again after its change, outside the
/// time measured, as a view renders again.
func observationScenario(_ settings: Settings) -> Row {
    let observers = 10_000
    let updates = settings.iterations(100)
    let client = QueryClient()
    client.setQueryData(0, for: "tracked")
    let consumers = (0..<observers).map { _ in Query<Void, Int>.Consumer(key: "tracked", client: client) }
    let changed = Counter()
    func track() {
        for consumer in consumers {
            withObservationTracking {
                _ = consumer.state.value
            } onChange: {
                changed.bump()
            }
        }
    }
    let clock = ContinuousClock()
    var best = Double.infinity
    var next = 0
    for _ in 0..<settings.repetitions {
        var total = Duration.zero
        for _ in 0..<updates {
            track()
            next += 1
            let value = next
            total += clock.measure { client.setQueryData(value, for: "tracked") }
        }
        best = min(best, nanoseconds(total) / Double(updates))
    }
    precondition(changed.value == observers * settings.repetitions * updates, "every observer heard every change")
    precondition(consumers.allSatisfy { $0.state.value == next }, "every consumer has the last value")

    let models = (0..<observers).map { _ in ObservableModel() }
    var baseline = Double.infinity
    for _ in 0..<settings.repetitions {
        var total = Duration.zero
        for _ in 0..<updates {
            for model in models {
                withObservationTracking {
                    _ = model.value
                } onChange: {
                    changed.bump()
                }
            }
            next += 1
            let value = next
            total += clock.measure {
                for model in models { model.value = value }
            }
        }
        baseline = min(baseline, nanoseconds(total) / Double(updates))
    }
    precondition(changed.value == 2 * observers * settings.repetitions * updates, "every model's observer heard")
    return Row(
        scenario: "(m) setQueryData to 10,000 Observation observers",
        baselineName: "10,000 observable objects changed", nanoseconds: best, baselineNanoseconds: baseline,
        target: .ratio(3))
}

/// An observable object as the `@Observable` macro writes it, with one stored property.
final class ObservableModel: Observable {
    private let registrar = ObservationRegistrar()
    private var storage = 0

    var value: Int {
        get {
            registrar.access(self, keyPath: \.value)
            return storage
        }
        set {
            registrar.withMutation(of: self, keyPath: \.value) { storage = newValue }
        }
    }
}
