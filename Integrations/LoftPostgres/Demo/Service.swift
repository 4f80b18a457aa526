import Foundation
import Hummingbird
import Loft
import LoftPostgres
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// One instance of the demo as the HTTP service a team would run (`serve URL TABLE`): its own client on the
/// shared table, its link to the other instances, a fleet-wide single flight in front of a simulated upstream
/// (20 ms a call), on a port of loopback it prints (`ready PORT`).
///
/// Routes: `GET /users/ID` (the profile, as JSON), `POST /users/ID/invalidate` (answers the wall-clock time
/// the invalidation was made, in nanoseconds), `GET /applied/N` (waits until this instance applied more than
/// N invalidations of others, and answers the time it applied the last), `GET /stats` (what it served, as
/// JSON), `GET /ping`.
final class Service: Sendable {
    private struct Counters {
        var requests = 0
        var fromTable = 0
        var upstream: [Int: Int] = [:]
        /// When each invalidation of another instance, and each bare notification, arrived.
        var arrivals: [Arrival: [Int64]] = [:]
        var waiters: [(arrival: Arrival, after: Int, continuation: CheckedContinuation<Int64, Never>)] = []
    }

    /// What an instance times: another instance's invalidation applied, or a bare `NOTIFY` received on a
    /// connection of its own (the baseline, through the same processes).
    enum Arrival: String, Hashable {
        case applied
        case bare
    }

    let client: QueryClient
    private let url: String
    private let table: String
    let link: PostgresFleetLink
    let flight: PostgresSingleFlight
    private let counters = NIOLockedValueBox(Counters())

    init(url: String, table: String) throws {
        self.url = url
        self.table = table
        let cache = try PostgresQueryCache(url: url, table: table)
        client = QueryClient(
            cache: cache, cacheConfig: QueryCacheConfig(invalidationPolicy: .notExpires, usagePolicy: .useIfFetchFails),
            defaults: QueryDefaults(staleTime: .seconds(60)))
        link = PostgresFleetLink(client: client, cache: cache)
        flight = PostgresSingleFlight(cache: cache, freshFor: .seconds(60))
    }

    /// Serves until the process is told to stop (or its parent ends).
    func run() async throws {
        let subscription = link.events.sink { [self] event in
            if case .applied(let change) = event, case .invalidate = change.operation { arrived(.applied) }
        }
        defer { subscription.cancel() }
        link.start()
        await link.waitUntilListening()
        let bare = try await listenBare()
        defer { bare.cancel() }
        let router = Router()
        router.get("users/:id") { [self] _, context -> String in
            let id = try context.parameters.require("id", as: Int.self)
            counters.withLockedValue { $0.requests += 1 }
            let profile = try await fetch(id)
            return #"{"id":\#(profile.id),"name":"\#(profile.name)"}"#
        }
        router.post("users/:id/invalidate") { [self] _, context -> String in
            let id = try context.parameters.require("id", as: Int.self)
            let made = Clock.nanoseconds()
            await client.invalidateQueries(QueryKey("user", id), exact: true).settled()
            return String(made)
        }
        router.get(":arrival/:after") { [self] _, context -> String in
            guard let arrival = Arrival(rawValue: try context.parameters.require("arrival")) else { return "0" }
            return String(await arrived(arrival, after: try context.parameters.require("after", as: Int.self)))
        }
        router.get("stats") { [self] _, _ -> String in
            let counters = counters.withLockedValue { $0 }
            let perKey = counters.upstream.values
            return #"{"requests":\#(counters.requests),"fromTable":\#(counters.fromTable),"#
                + #""upstreamCalls":\#(perKey.reduce(0, +)),"keysCalled":\#(perKey.count),"#
                + #""maximumPerKey":\#(perKey.max() ?? 0)}"#
        }
        router.get("ping") { _, _ -> String in "pong" }
        var logger = Logger(label: "loft.demo.service")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                try? FileHandle.standardOutput.write(
                    contentsOf: Data("ready \(channel.localAddress?.port ?? 0)\n".utf8))
            }, logger: logger)
        try await app.runService()
        await link.stop()
    }

    /// The value of `key` through the client, the fleet's single flight and the upstream.
    private func fetch(_ key: Int) async throws -> Profile {
        try await client.fetchQuery(QueryKey("user", key)) { [self] in
            let called = Flag()
            let profile = try await flight.value(for: QueryKey("user", key), as: Profile.self) { [self] in
                called.set()
                counters.withLockedValue { $0.upstream[key, default: 0] += 1 }
                try await Task.sleep(for: .milliseconds(20))  // the upstream's latency
                return Profile(id: key, name: "user \(key) from process \(getpid())")
            }
            if !called.isSet { counters.withLockedValue { $0.fromTable += 1 } }
            return profile
        }
    }

    /// Listens on the channel `<table>_bare` on a connection of its own, for the baseline.
    private func listenBare() async throws -> Task<Void, any Error> {
        let configuration = try PostgresCacheConfiguration(url: url)
        let connection = try await PostgresConnection.connect(
            configuration: configuration.connection,
            id: 20, logger: Logger(label: "loft.demo.bare"))
        let listening = Arrivals()
        let task = Task { [self] in
            defer { Task { try? await connection.close() } }
            try await connection.listen(on: table + "_bare") { notifications in
                listening.arrive()
                for try await _ in notifications { arrived(.bare) }
            }
        }
        await listening.wait(for: 1)
        return task
    }

    private func arrived(_ arrival: Arrival) {
        let now = Clock.nanoseconds()
        let ready = counters.withLockedValue { counters in
            counters.arrivals[arrival, default: []].append(now)
            let count = counters.arrivals[arrival, default: []].count
            let isReady = { (waiter: (arrival: Arrival, after: Int, continuation: CheckedContinuation<Int64, Never>)) in
                waiter.arrival == arrival && waiter.after < count
            }
            defer { counters.waiters.removeAll(where: isReady) }
            return counters.waiters.filter(isReady).map(\.continuation)
        }
        for waiter in ready { waiter.resume(returning: now) }
    }

    /// The time the arrival number `after + 1` of its kind came, once it has.
    private func arrived(_ arrival: Arrival, after: Int) async -> Int64 {
        await withCheckedContinuation { continuation in
            let stamp = counters.withLockedValue { counters -> Int64? in
                let times = counters.arrivals[arrival, default: []]
                if times.count > after { return times[after] }
                counters.waiters.append((arrival, after, continuation))
                return nil
            }
            if let stamp { continuation.resume(returning: stamp) }
        }
    }
}
