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
/// - `cache-hit`: `getQueryData` of a present key among 1,000, 100,000 times; per read. `cache-hit-baseline`:
///   (d)'s baseline, a locked `Dictionary<QueryKey, Int>` lookup, as many times.
/// - `subject-send`: (a), one `send` to 10,000 sinks, 20 times; per subscriber reached.
/// - `subscribe-cancel`: (c), a `sink` and its `cancel` beside 10,000 sinks, 10,000 times; per pair.
/// - `mutation-N`: (o), N awaited `mutate` calls with a subscriber to the state; `task-N`: (o)'s baseline, N
///   fetcher calls each in a task, awaited. Their work runs on the concurrency pool's threads, outside
///   `countedRegion`: count the whole program for two N and divide the difference (the set-up cancels out).
/// - `dedupe-N`: (e), N callers of one cold key joining its fetch; `latch-N`: (e)'s baseline, N tasks parked on
///   a latch. Counted as `mutation-N` is, for two N.
/// - `fresh-N`: (u), N fresh `fetchQuery` hits of one key from one task; counted as `mutation-N` is, for two N.
/// - `scope-L-M`: (p), M lines of L calls in one scope each (all but the last of a line submitted with
///   `execute`, the last awaited); counted as `mutation-N` is, for two M.
func instructionProbe(_ name: String) {
    switch name {
    case _ where name.hasPrefix("mutation-"):
        let calls = Int(name.dropFirst("mutation-".count)) ?? 1
        let client = QueryClient()
        let mutation = Mutation<Int, Int>(client: client) { $0 + 1 }
        let subscription = mutation.statePublisher.sink { _ in }
        let sum = runBlocking {
            var sum = 0
            for call in 0..<calls { sum += (try? await mutation.mutate(call)) ?? -1 }
            return sum
        }
        precondition(sum == calls * (calls + 1) / 2)
        subscription.cancel()
        print("operations \(calls)")
    case _ where name.hasPrefix("fresh-"):
        // (u): N fresh `fetchQuery` hits of one key from one task; counted as `mutation-N` is, for two N.
        let calls = Int(name.dropFirst("fresh-".count)) ?? 1
        let client = QueryClient()
        client.setQueryData(1, for: "item")
        let sum = runBlocking {
            var sum = 0
            for _ in 0..<calls {
                sum += (try? await client.fetchQuery("item", staleTime: .infinity) { 2 }) ?? 0
            }
            return sum
        }
        precondition(sum == calls, "every call is a fresh hit")
        print("operations \(calls)")
    case _ where name.hasPrefix("task-"):
        let calls = Int(name.dropFirst("task-".count)) ?? 1
        let fetcher: @Sendable (Int) async throws -> Int = { $0 + 1 }
        let sum = runBlocking {
            var sum = 0
            for call in 0..<calls { sum += (try? await Task { try await fetcher(call) }.value) ?? -1 }
            return sum
        }
        precondition(sum == calls * (calls + 1) / 2)
        print("operations \(calls)")
    case _ where name.hasPrefix("scope-"):
        // `scope-L-M`: M lines of L calls in one scope each, as (p) submits them.
        let sizes = name.split(separator: "-").dropFirst().compactMap { Int($0) }
        let (length, lines) = (sizes.first ?? 10, sizes.dropFirst().first ?? 1)
        _ = submitScopeLines(lineLength: length, lines: lines)
        print("operations \(length * lines)")
    case _ where name.hasPrefix("dedupe-"):
        // (e): N callers of one cold key, all joining the one fetch; counted as `mutation-N` is, for two N.
        let callers = Int(name.dropFirst("dedupe-".count)) ?? 1
        let client = QueryClient()
        let arrivals = Arrivals(expected: callers)
        let sum = runBlocking {
            let tasks = (0..<callers).map { _ in
                Task {
                    arrivals.arrive()
                    return
                        (try? await client.fetchQuery("dedupe", staleTime: .infinity) {
                            await arrivals.waitForAll()
                            return 1
                        }) ?? -1
                }
            }
            var sum = 0
            for task in tasks { sum += await task.value }
            return sum
        }
        precondition(sum == callers)
        print("operations \(callers)")
    case _ where name.hasPrefix("latch-"):
        // (e)'s baseline: N tasks parked on a latch that the last one opens.
        let callers = Int(name.dropFirst("latch-".count)) ?? 1
        let latch = Latch(opensAt: callers)
        let sum = runBlocking {
            let tasks = (0..<callers).map { _ in Task { await latch.wait() } }
            var sum = 0
            for task in tasks { sum += await task.value }
            return sum
        }
        precondition(sum == 42 * callers)
        print("operations \(callers)")
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
    case "cache-hit", "cache-hit-baseline":
        let keys = (0..<1_000).map { QueryKey("item", $0) }
        let (key, reads, counter) = (keys[500], 100_000, Counter())
        if name == "cache-hit" {
            let client = QueryClient()
            for (index, key) in keys.enumerated() { client.setQueryData(index, for: key) }
            countedRegion {
                for _ in 0..<reads where (try? client.getQueryData(key, as: Int.self)) == 500 { counter.bump() }
            }
        } else {
            let dictionary = Locked(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
            countedRegion {
                for _ in 0..<reads where dictionary.withLock({ $0[key] }) == 500 { counter.bump() }
            }
        }
        precondition(counter.value == reads, "every read hit the cache and saw the value")
        print("operations \(reads)")
    case "subject-send":
        let (subject, counter) = (PassthroughSubject<Int, Never>(), Counter())
        let subscriptions = (0..<10_000).map { _ in subject.sink { _ in counter.bump() } }
        countedRegion {
            for value in 0..<20 { subject.send(value) }
        }
        precondition(counter.value == 200_000, "every subscriber got every value")
        withExtendedLifetime(subscriptions) {}
        print("operations 200000")
    case "subscribe-cancel":
        let subject = PassthroughSubject<Int, Never>()
        let existing = (0..<10_000).map { _ in subject.sink { _ in } }
        countedRegion {
            for _ in 0..<10_000 { subject.sink { _ in }.cancel() }
        }
        precondition(subject.subscriberCount == existing.count, "the 10,000 stayed subscribed")
        print("operations 10000")
    default:
        print(
            "unknown probe \(name): state-read, fan-out, focus, cache-hit, cache-hit-baseline, subject-send or subscribe-cancel"
        )
        exit(2)
    }
}

/// The region callgrind counts.
@inline(never)
func countedRegion(_ body: () -> Void) {
    body()
}
