import Foundation
import Loft
import LoftDevtools
import Synchronization

// The devtools' cost to a client when mounted and nobody watches (release build): three of Loft's benchmark
// scenarios, each run on a client without devtools and on one with the devtools mounted and no page open,
// taking turns so that both see the same moments of a noisy machine. Target: 1.1× for each. (`--quick`:
// fewer rounds, to prove the scenarios run.)
//
// - (d) a cache-hit read: `getQueryData` of a present key, 100,000 times.
// - (f) `setQueryData` to 10,000 consumers of the key, each subscribed with `valuePublisher.sink` and checking
//   it got the value written: 20 writes.
// - (k) `setFocused(true)` with 10,000 active queries (each with a subscribed `statePublisher`), 100 of them
//   stale: the call, which starts their 100 fetches.

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 3 : 15
let clock = ContinuousClock()

func nanoseconds(_ body: () -> Void) -> Double {
    let start = clock.now
    body()
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
}

/// A client, with the devtools mounted on it when asked.
struct Subject {
    let client = QueryClient()
    let devtools: LoftDevtools?

    init(mounted: Bool) async throws {
        devtools = mounted ? try await LoftDevtools.mount(on: client) : nil
    }
}

// MARK: - (d)

func cacheHit(_ subject: Subject) -> Double {
    let reads = 100_000
    return nanoseconds {
        var sum = 0
        for _ in 0..<reads { sum &+= (try? subject.client.getQueryData("hit", as: Int.self)) ?? 0 }
        precondition(sum == reads * 42, "every read returns the value")
    } / Double(reads)
}

// MARK: - (f)

final class Received: Sendable {
    let count = Atomic<Int>(0)
    let expected = Atomic<Int>(0)
}

func consumers(_ subject: Subject, _ received: Received) -> ([Query<Void, Int>.Consumer], [Subscription]) {
    subject.client.setQueryData(0, for: "shared")
    let consumers = (0..<10_000).map { _ in Query<Void, Int>.Consumer(key: "shared", client: subject.client) }
    let subscriptions = consumers.map { consumer in
        consumer.valuePublisher.sink { value in
            if value == received.expected.load(ordering: .relaxed) { received.count.add(1, ordering: .relaxed) }
        }
    }
    return (consumers, subscriptions)
}

func fanOut(_ subject: Subject, _ received: Received) -> Double {
    let writes = 20
    let before = received.count.load(ordering: .relaxed)
    let time = nanoseconds {
        for _ in 0..<writes {
            let next = received.expected.add(1, ordering: .relaxed).newValue
            subject.client.setQueryData(next, for: "shared")
        }
    }
    precondition(received.count.load(ordering: .relaxed) - before == writes * 10_000, "every consumer got each value")
    return time / Double(writes)
}

// MARK: - (k)

func focusedQueries(_ subject: Subject) async -> ([Query<Void, Int>], [Subscription]) {
    let queries = (0..<10_000).map { index in
        Query<Void, Int>(
            key: ["focus", index], behavior: .startImmediately(()),
            options: QueryOptions(staleTime: index < 100 ? .zero : .infinity), client: subject.client
        ) { index }
    }
    let subscriptions = queries.map { $0.statePublisher.sink { _ in } }
    await subject.client.waitUntilIdle()
    return (queries, subscriptions)
}

func focus(_ subject: Subject) async -> Double {
    subject.client.setFocused(false)
    let time = nanoseconds { subject.client.setFocused(true) }
    await subject.client.waitUntilIdle()
    return time
}

// MARK: - Runs

let plain = try await Subject(mounted: false)
let mounted = try await Subject(mounted: true)
for subject in [plain, mounted] { subject.client.setQueryData(42, for: "hit") }
let (plainReceived, mountedReceived) = (Received(), Received())
let plainConsumers = consumers(plain, plainReceived)
let mountedConsumers = consumers(mounted, mountedReceived)
let plainQueries = await focusedQueries(plain)
let mountedQueries = await focusedQueries(mounted)

var best: [String: (plain: Double, mounted: Double)] = [:]
@MainActor func keep(_ name: String, _ plain: Double, _ mounted: Double) {
    let old = best[name] ?? (.infinity, .infinity)
    best[name] = (min(old.plain, plain), min(old.mounted, mounted))
}
for _ in 0..<rounds {
    keep("(d) cache-hit read (getQueryData)", cacheHit(plain), cacheHit(mounted))
    keep(
        "(f) setQueryData to 10,000 subscribed consumers", fanOut(plain, plainReceived),
        fanOut(mounted, mountedReceived))
    keep("(k) setFocused(true), 10,000 active queries, 100 stale", await focus(plain), await focus(mounted))
}
precondition(mounted.devtools?.isWatched == false, "nobody watched the devtools")

func format(_ nanoseconds: Double) -> String {
    nanoseconds < 1_000 ? String(format: "%.1f ns", nanoseconds) : String(format: "%.2f µs", nanoseconds / 1_000)
}
print("| scenario | devtools mounted, idle | without devtools | ratio | target | |")
print("|---|---|---|---|---|---|")
var missed = false
for name in best.keys.sorted() {
    guard let times = best[name] else { continue }
    let ratio = times.mounted / times.plain
    missed = missed || ratio > 1.1
    print(
        "| \(name) | \(format(times.mounted)) | \(format(times.plain)) | \(String(format: "%.2f", ratio))× | ≤ 1.1× "
            + "| \(ratio <= 1.1 ? "ok" : "MISSED") |")
}
withExtendedLifetime((plainConsumers, mountedConsumers, plainQueries, mountedQueries)) {}
await mounted.devtools?.unmount()
if CommandLine.arguments.contains("--check"), missed { exit(1) }
