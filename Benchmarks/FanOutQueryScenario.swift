import Loft
import Synchronization

/// The publisher of a consumer that (f) subscribes to.
enum FanOutChannel {
    case valuePublisher, statePublisher
}

/// (f) 10,000 consumers of one key, each subscribed with `valuePublisher.sink` (or `statePublisher.sink`) and
/// checking that it got the value written; one `setQueryData`: time until every subscriber has the new value,
/// against 10,000 closure calls that make the same check.
func fanOutQueryScenario(_ settings: Settings, through channel: FanOutChannel) -> Row {
    let observers = 10_000
    let updates = settings.iterations(200)
    let fleet = SubscribedConsumers(observers, through: channel)
    let (client, expected, received) = (fleet.client, fleet.expected, fleet.received)
    precondition(received.value == observers, "every subscriber has the current value at once")
    let loft = withExtendedLifetime(fleet) {
        measure(repetitions: settings.repetitions, iterations: updates) {
            for _ in 0..<updates {
                let next = expected.advance()
                client.setQueryData(next, for: "shared")
            }
        }
    }
    let writes = settings.repetitions * updates
    precondition(received.value == observers * (writes + 1), "every subscriber got every value it was sent")

    let closures: [@Sendable (Int) -> Void] = (0..<observers).map { _ in
        { value in if value == expected.value { received.bump() } }
    }
    let baseline = measure(repetitions: settings.repetitions, iterations: updates) {
        for _ in 0..<updates {
            let next = expected.advance()
            for closure in closures { closure(next) }
        }
    }
    blackHole(received.value)
    return Row(
        scenario: channel == .valuePublisher
            ? "(f) setQueryData to 10,000 subscribed consumers" : "(f) …the same, through statePublisher",
        baselineName: "10,000 closure calls, same check",
        nanoseconds: loft, baselineNanoseconds: baseline, target: .ratio(3))
}

/// `count` consumers of the key "shared" (which holds 0), each subscribed through `channel` and counting in
/// `received` the values it gets that equal `expected`'s: what (f) and its instruction probe measure.
struct SubscribedConsumers {
    let client = QueryClient()
    let expected = Expected()
    let received = Counter()
    let consumers: [Query<Void, Int>.Consumer]
    let subscriptions: [Subscription]

    init(_ count: Int, through channel: FanOutChannel) {
        client.setQueryData(0, for: "shared")
        consumers = (0..<count).map { [client] _ in Query<Void, Int>.Consumer(key: "shared", client: client) }
        subscriptions = consumers.map { [expected, received] consumer in
            switch channel {
            case .valuePublisher:
                consumer.valuePublisher.sink { value in
                    if value == expected.value { received.bump() }
                }
            case .statePublisher:
                consumer.statePublisher.sink { state in
                    if state.value == expected.value { received.bump() }
                }
            }
        }
    }
}

/// The value a scenario writes next, which its subscribers check they received.
final class Expected: Sendable {
    private let storage = Atomic<Int>(0)

    var value: Int { storage.load(ordering: .relaxed) }

    /// Moves to the next value and returns it.
    func advance() -> Int {
        storage.add(1, ordering: .relaxed).newValue
    }
}
