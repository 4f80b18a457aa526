import Foundation
import Loft
import LoftTesting
import Testing

@testable import LoftPostgres

/// One order of writes for the fleet: whatever the instances do at once, once the notifications of their
/// changes have arrived, every instance that holds a key holds the row's value.
@Suite(.timeLimit(.minutes(3))) struct ConvergenceTests {
    @Test func twoWritersAtTheSameMomentConvergeOnTheRowEveryRound() async throws {
        let fleet = try await Instance.fleet(2)
        let key: QueryKey = ["counter"]
        for round in 0..<100 {
            // Both write at once, each its own value; each applies its own at once, then the row's order.
            await withTaskGroup(of: Void.self) { group in
                for (index, instance) in fleet.enumerated() {
                    group.addTask {
                        instance.client.setQueryData(Profile(id: round, name: "writer \(index)"), for: key)
                        await instance.client.flush()
                    }
                }
            }
            try await Self.quiesce(fleet)
            let row = try await fleet[0].cache.get(Profile.self, for: key)?.value
            for instance in fleet {
                #expect(try instance.client.getQueryData(key, as: Profile.self) == row, "round \(round)")
            }
        }
        for instance in fleet { await instance.link.stop() }
    }

    @Test func threeInstancesOfTwoThousandMixedOperationsConvergeWithTheRows() async throws {
        let fleet = try await Instance.fleet(3)
        let keys = (0..<20).map { QueryKey("item", $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, instance) in fleet.enumerated() {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(index + 1) * 7_919)
                    for step in 0..<2_000 {
                        try await Self.operate(instance, on: random.pick(keys), step: step, index: index, &random)
                    }
                    await instance.client.flush()
                }
            }
            try await group.waitForAll()
        }
        // Then each instance reads every key, as a user would: what it holds, or a new value from the upstream.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, instance) in fleet.enumerated() {
                group.addTask {
                    for key in keys {
                        _ = try? await instance.client.fetchQuery(key) { Profile(id: -index, name: "final \(index)") }
                    }
                    await instance.client.flush()
                }
            }
            try await group.waitForAll()
        }
        try await Self.quiesce(fleet)
        var compared = 0
        for key in keys {
            let row = try await fleet[0].cache.get(Profile.self, for: key)?.value
            for instance in fleet {
                guard let held = try instance.client.getQueryData(key, as: Profile.self) else { continue }
                #expect(held == row, "\(key)")
                compared += 1
            }
        }
        #expect(compared >= keys.count)
        for instance in fleet { await instance.link.stop() }
    }

    @Test func aNotificationOlderThanTheRowAnInstanceReadIsIgnored() async throws {
        let fleet = try await Instance.fleet(1)
        let instance = fleet[0]
        let key: QueryKey = ["user", 5]
        let writer = try TestServer.cache(table: instance.cache.configuration.table)
        try await writer.save(Profile(id: 5, name: "first"), for: key)
        try await writer.save(Profile(id: 5, name: "second"), for: key)
        try await Self.quiesce(fleet)
        // The instance reads the row (the newest value, with its version)...
        let client = QueryClient(
            cache: instance.cache, cacheConfig: QueryCacheConfig(usagePolicy: .useInsteadOfFetching))
        let link = PostgresFleetLink(client: client, cache: instance.cache)
        let log = EventLog(link.events)
        link.start()
        await link.waitUntilListening()
        let read = try await client.fetchQuery(key) { Profile(id: 5, name: "upstream") }
        #expect(read.name == "second")
        let row = try #require(try await writer.get(Profile.self, for: key))
        // ...then a change older than that row arrives late: it is not applied.
        let late = try FleetMessage(
            origin: UUID(), change: SharedChange(.setData(json: #"{"id":5,"name":"late"}"#), [.exact(key)]),
            isRowWrite: true
        ).payload(version: try #require(row.version) - 1)
        try await TestServer.withConnection { connection in
            _ = try await connection.query("SELECT pg_notify(\(link.channel), \(late))", logger: connection.logger)
                .collect()
        }
        await log.first { $0.appliedValue?.version == (row.version ?? 0) - 1 }
        #expect(try client.getQueryData(key, as: Profile.self)?.name == "second")
        await link.stop()
        await instance.link.stop()
    }

    @Test func aNewerRowReachesAnInstanceThatHoldsAnOlderValueWithinOneNotification() async throws {
        let fleet = try await Instance.fleet(2)
        let key: QueryKey = ["user", 6]
        // The second instance holds a value it considers fresh for ever (`staleTime` infinity).
        _ = try await fleet[1].client.fetchQuery(key) { Profile(id: 6, name: "old") }
        await fleet[1].client.flush()
        // The first fetches a newer one (its own upstream call) and saves it.
        _ = try await fleet[0].client.fetchQuery(key, staleTime: .zero) { Profile(id: 6, name: "new") }
        await fleet[0].client.flush()
        let row = try #require(try await fleet[0].cache.get(Profile.self, for: key))
        await fleet[1].appliedValue(of: key, version: try #require(row.version))
        #expect(try fleet[1].client.getQueryData(key, as: Profile.self)?.name == "new")
        for instance in fleet { await instance.link.stop() }
    }

    @Test func withoutALinkAStaleEntryServesTheNewerRowWhenItAsksTheStore() async throws {
        let table = TestServer.uniqueTable()
        let config = QueryCacheConfig(usagePolicy: .useInsteadOfFetching)
        let (first, second) = (try TestServer.cache(table: table), try TestServer.cache(table: table))
        let reader = QueryClient(cache: first, cacheConfig: config)
        let writer = QueryClient(cache: second, cacheConfig: config)
        _ = try await writer.fetchQuery(["user", 8]) { Profile(id: 8, name: "old") }
        await writer.flush()
        #expect(try await reader.fetchQuery(["user", 8]) { Profile(id: 8, name: "upstream") }.name == "old")
        writer.setQueryData(Profile(id: 8, name: "new"), for: ["user", 8])
        await writer.flush()
        // Stale (staleTime 0): the reader asks the store, whose row is newer than its entry.
        let served = try await reader.fetchQuery(["user", 8]) { Profile(id: 8, name: "upstream") }
        #expect(served.name == "new")
    }

    /// One random operation of a user of the cache: a write, a fetch, an invalidation or a removal.
    private static func operate(
        _ instance: Instance, on key: QueryKey, step: Int, index: Int, _ random: inout SeededRandom
    ) async throws {
        let value = Profile(id: step, name: "instance \(index) step \(step)")
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            instance.client.setQueryData(value, for: key)
        case 4..<7:
            // A removal from another instance may cancel it: that is not a failure of the fleet.
            _ = try? await instance.client.fetchQuery(key, staleTime: .zero) { value }
        case 7..<9:
            await instance.client.invalidateQueries(key, exact: true).settled()
        default:
            instance.client.removeQueries(key, exact: true)
        }
    }

    /// Waits until every instance has received every change made before now: a new row written after them
    /// all (through a cache of its own) reaches each instance after them, in commit order.
    static func quiesce(_ fleet: [Instance]) async throws {
        let writer = try TestServer.cache(table: fleet[0].cache.configuration.table)
        try await writer.save(Profile(id: -1, name: UUID().uuidString), for: ["quiesce"])
        let marker = try #require(try await writer.get(Profile.self, for: ["quiesce"])?.version)
        for instance in fleet { await instance.appliedValue(of: ["quiesce"], version: marker) }
    }
}
