import Foundation
import Loft
import LoftPostgres
import NIOConcurrencyHelpers
import PostgresNIO

/// Counts arrivals down to zero and resumes the one waiting for them.
final class Countdown: Sendable {
    private let state: NIOLockedValueBox<(remaining: Int, waiter: CheckedContinuation<Void, Never>?)>

    init(_ count: Int) {
        state = NIOLockedValueBox((count, nil))
    }

    func arrive() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Ends the wait whatever arrived.
    func arriveAll() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.remaining = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLockedValue { state -> Bool in
                if state.remaining <= 0 { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}

/// The current countdown of a round trip, which every receiver ticks.
final class CurrentCountdown: Sendable {
    private let current = NIOLockedValueBox<Countdown?>(nil)
    func start(_ count: Int) -> Countdown {
        let countdown = Countdown(count)
        current.withLockedValue { $0 = countdown }
        return countdown
    }
    func arrive() { current.withLockedValue { $0 }?.arrive() }
}

/// Invalidation fan-out to 3 instances, beside a bare NOTIFY to 3 listeners.
enum FanOut {
    static func measure(
        url: String, table: String, connection: PostgresConnection, rounds: Int, quick: Bool
    ) async throws -> (loft: Double, baseline: Double) {
        let trips = quick ? 20 : 300
        let instances = try (0..<4).map { _ in try PostgresQueryCache(url: url, table: table) }.map { cache in
            let client = QueryClient(cache: cache, defaults: QueryDefaults(staleTime: .infinity))
            return (client: client, link: PostgresFleetLink(client: client, cache: cache))
        }
        // The instances' applied changes and the bare listeners' notifications tick countdowns of their own: a
        // late "ready" notification never completes a round trip of the instances.
        let applied = CurrentCountdown()
        let current = CurrentCountdown()
        var subscriptions: [Subscription] = []
        // Only invalidations tick it: a row write arriving late (the value saved below) is not a round trip's end.
        for instance in instances {
            subscriptions.append(
                instance.link.events.sink { event in
                    if case .applied(let change) = event, case .invalidate = change.operation { applied.arrive() }
                })
            instance.link.start()
            await instance.link.waitUntilListening()
        }
        for instance in instances.dropFirst() {
            _ = try await instance.client.fetchQuery(["user", 42]) { 42 }
            guard try instance.client.getQueryData(["user", 42], as: Int.self) == 42 else { fatalError("no value") }
        }
        for instance in instances { await instance.client.flush() }
        let sender = instances[0].client
        let payload = String(repeating: "x", count: 103)  // the size of the change sent: an exact invalidation
        let channel = table + "_bare"
        var listeners: [PostgresConnection] = []
        for _ in 0..<3 { listeners.append(try await Self.connect(url)) }
        let tasks = listeners.map { listener in
            Task {
                try await listener.listen(on: channel) { notifications in
                    for try await _ in notifications { current.arrive() }
                }
            }
        }
        // A listener listens once a notification reaches it.
        while true {
            let countdown = current.start(3)
            _ = try await connection.query("SELECT pg_notify(\(channel), 'ready')", logger: connection.logger)
                .collect()
            if await Self.arrives(countdown) { break }
        }
        // The saves' row writes reach every instance as fresh values: round trips until one finds every instance
        // stale, so that none lands during the measurement.
        var settled = false
        for _ in 0..<100 where !settled {
            let countdown = applied.start(3)
            invalidate(sender)
            guard await Self.arrives(countdown) else { continue }
            settled = try instances.dropFirst().allSatisfy {
                try $0.client.snapshot(for: ["user", 42], as: Int.self).isStale
            }
        }
        guard settled else { fatalError("the instances never all held the invalidation") }
        var (loft, baseline) = (Double.infinity, Double.infinity)
        for _ in 0..<rounds {
            loft = min(
                loft,
                try await perTrip(trips) {
                    let countdown = applied.start(3)
                    invalidate(sender)
                    await countdown.wait()
                    for instance in instances.dropFirst() {
                        guard try instance.client.snapshot(for: ["user", 42], as: Int.self).isStale else {
                            fatalError("every instance has the invalidation")
                        }
                    }
                })
            baseline = min(
                baseline,
                try await perTrip(trips) {
                    let countdown = current.start(3)
                    _ = try await connection.query(
                        "SELECT pg_notify(\(channel), \(payload))", logger: connection.logger
                    )
                    .collect()
                    await countdown.wait()
                })
        }
        for task in tasks { task.cancel() }
        for listener in listeners { try? await listener.close() }
        for instance in instances { await instance.link.stop() }
        subscriptions.removeAll()
        return (loft, baseline)
    }

    /// Invalidates the key without waiting for refetches (the synchronous form).
    private static func invalidate(_ client: QueryClient) {
        client.invalidateQueries(["user", 42], exact: true, refetchType: .none)
    }

    /// Whether `countdown` completes soon (a listener that does not listen yet never ticks it).
    private static func arrives(_ countdown: Countdown) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await countdown.wait()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(100))
                return false
            }
            let first = await group.next() ?? false
            if !first { countdown.arriveAll() }
            group.cancelAll()
            return first
        }
    }

    private static func connect(_ url: String) async throws -> PostgresConnection {
        let configuration = try PostgresCacheConfiguration(url: url)
        return try await PostgresConnection.connect(
            configuration: configuration.connection,
            id: 3, logger: Logger(label: "loft.postgres.benchmarks"))
    }

    /// The time per trip of `body` run `trips` times.
    private static func perTrip(_ trips: Int, _ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<trips { try await body() }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
            / Double(trips)
    }
}
