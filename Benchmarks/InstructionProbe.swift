import Foundation
import Loft

/// The measured part of a scenario alone, for `valgrind --tool=callgrind --toggle-collect='*countedRegion*'`:
/// callgrind counts the instructions inside `countedRegion` and nothing else, and the probe prints how many
/// operations ran there. Instruction counts hold on a loaded machine, where times do not
/// (`.ci/instruction-counts` divides one by the other and compares with the counts committed in
/// `.ci/instruction-counts.txt`).
///
/// - `state-read`: `query.state.value` of a live query, 100,000 times; per read.
/// - `fan-out`: one `setQueryData` reaching 10,000 consumers subscribed with `valuePublisher.sink`, 20 times;
///   per observer reached.
/// - `focus`: `setFocused(true)` with 10,000 active queries of which 100 are stale, 5 times; per call.
func instructionProbe(_ name: String) {
    switch name {
    case "state-read":
        let client = QueryClient()
        client.setQueryData(7, for: "read")
        let query = Query<Void, Int>(key: "read", client: client) { 7 }
        let counter = Counter()
        let reads = 100_000
        _ = query.state  // the first read starts tracking, outside the count
        countedRegion {
            for _ in 0..<reads where query.state.value == 7 { counter.bump() }
        }
        precondition(counter.value == reads, "every read saw the value")
        print("operations \(reads)")
    case "fan-out":
        let observers = 10_000
        let writes = 20
        let fleet = SubscribedConsumers(observers, through: .valuePublisher)
        let (client, expected, received) = (fleet.client, fleet.expected, fleet.received)
        countedRegion {
            for _ in 0..<writes { client.setQueryData(expected.advance(), for: "shared") }
        }
        precondition(received.value == observers * (writes + 1), "every subscriber got every value")
        withExtendedLifetime(fleet) {}
        print("operations \(observers * writes)")
    case "focus":
        let fleet = FocusedQueries()
        let calls = 5
        for _ in 0..<calls {
            fleet.client.setFocused(false)
            countedRegion { fleet.client.setFocused(true) }
            fleet.checkRefetched()
        }
        print("operations \(calls)")
    default:
        print("unknown probe \(name): state-read, fan-out or focus")
        exit(2)
    }
}

/// The region callgrind counts.
@inline(never)
func countedRegion(_ body: () -> Void) {
    body()
}
