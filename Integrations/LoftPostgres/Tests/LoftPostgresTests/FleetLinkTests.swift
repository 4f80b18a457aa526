import Foundation
import Loft
import PostgresNIO
import Synchronization
import Testing

@testable import LoftPostgres

/// One instance of a service: its client on the shared table, its link to the others.
struct Instance {
    let cache: PostgresQueryCache
    let client: QueryClient
    let link: PostgresFleetLink
    let log: EventLog<FleetLinkEvent>

    init(
        table: String, url: String? = nil, reconnectDelay: Duration = .milliseconds(50),
        healthCheckInterval: Duration = .seconds(2)
    ) throws {
        cache = try PostgresQueryCache(url: url ?? TestServer.url, table: table, timeout: TestServer.timeout)
        client = QueryClient(
            cache: cache, cacheConfig: QueryCacheConfig(invalidationPolicy: .notExpires, usagePolicy: .useIfFetchFails),
            defaults: QueryDefaults(staleTime: .infinity))
        link = PostgresFleetLink(
            client: client, cache: cache, reconnectDelay: reconnectDelay, healthCheckInterval: healthCheckInterval)
        log = EventLog(link.events)
    }

    /// Instances on one new table, listening.
    static func fleet(_ count: Int, healthCheckInterval: Duration = .seconds(2)) async throws -> [Instance] {
        let table = TestServer.uniqueTable()
        let instances = try (0..<count).map { _ in
            try Instance(table: table, healthCheckInterval: healthCheckInterval)
        }
        for instance in instances {
            instance.link.start()
            await instance.link.waitUntilListening()
        }
        return instances
    }

    func isStale(_ key: QueryKey) throws -> Bool {
        try client.snapshot(for: key, as: Profile.self).isStale
    }

    /// Waits until `count` invalidations or removals of other instances were applied here.
    func applied(_ count: Int) async {
        await log.count(count) { $0.isAppliedChange }
    }

    /// Waits until a row's value of `version` or newer for `key` was applied here.
    func appliedValue(of key: QueryKey, version: Int64) async {
        await log.first { ($0.appliedValue?.version ?? -1) >= version && $0.appliedValue?.targets == [.exact(key)] }
    }
}

@Suite(.timeLimit(.minutes(1))) struct FleetLinkTests {
    @Test func anInvalidationOnOneInstanceReachesTheOthersAndNotItself() async throws {
        let fleet = try await Instance.fleet(3)
        for instance in fleet {
            _ = try await instance.client.fetchQuery(["user", 1]) { Profile(id: 1, name: "Ada") }
            _ = try await instance.client.fetchQuery(["team", 1]) { Profile(id: 9, name: "Core") }
            // The rows are written (behind the caller) before the invalidation, which then comes after them in
            // the keys' order.
            await instance.client.flush()
        }
        await fleet[0].client.invalidateQueries(["user"]).settled()
        for instance in fleet[1...] { await instance.applied(1) }
        for instance in fleet {
            #expect(try instance.isStale(["user", 1]))
            #expect(try !instance.isStale(["team", 1]))
        }
        #expect(fleet[0].log.count(where: \.isAppliedChange) == 0)
        #expect(fleet[1].log.count(where: \.isSent) == 0)  // what it applied, it does not send again
        for instance in fleet { await instance.link.stop() }
    }

    @Test func exactKeysTagsAndRemovalsReachTheOthersWithTheirFilters() async throws {
        let fleet = try await Instance.fleet(2)
        let (sender, receiver) = (fleet[0], fleet[1])
        _ = try await receiver.client.fetchQuery(["user", 4]) { Profile(id: 4, name: "Four") }
        _ = try await receiver.client.fetchQuery(["user", 42]) { Profile(id: 42, name: "Forty-two") }
        _ = try await receiver.client.fetchQuery(["todo", 7], tags: ["todos"]) { Profile(id: 7, name: "Seven") }
        _ = try await receiver.client.fetchQuery(["team", 1]) { Profile(id: 1, name: "Core") }
        await receiver.client.flush()
        await sender.client.invalidateQueries(["user", 4], exact: true).settled()
        await sender.client.invalidateQueries(tagged: "todos").settled()
        sender.client.removeQueries(["team"], filter: QueryFilter(type: .inactive))
        await receiver.applied(3)
        #expect(try receiver.isStale(["user", 4]))
        #expect(try !receiver.isStale(["user", 42]))
        #expect(try receiver.isStale(["todo", 7]))
        #expect(try receiver.client.getQueryData(["team", 1], as: Profile.self) == nil)
        for instance in fleet { await instance.link.stop() }
    }

    @Test func aValueSetOnOneInstanceIsTheOthersValueWithItsRow() async throws {
        let fleet = try await Instance.fleet(2)
        let (sender, receiver) = (fleet[0], fleet[1])
        _ = try await receiver.client.fetchQuery(["user", 1]) { Profile(id: 1, name: "Ada") }
        _ = try await receiver.client.fetchQuery(["user", 2]) { Profile(id: 2, name: "Bo") }
        // Its rows are written (behind the caller) before the sender's, which come after them in the order.
        await receiver.client.flush()
        sender.client.setQueryData(Profile(id: 1, name: "Ada Lovelace"), for: ["user", 1])
        // Too large for a notification: the receiver reads the row.
        let large = Profile(id: 2, name: String(repeating: "B", count: 9_000))
        sender.client.setQueryData(large, for: ["user", 2])
        await sender.client.flush()
        for key: QueryKey in [["user", 1], ["user", 2]] {
            let row = try #require(try await sender.cache.get(Profile.self, for: key))
            await receiver.appliedValue(of: key, version: try #require(row.version))
            #expect(try receiver.client.getQueryData(key, as: Profile.self) == row.value)
            #expect(try !receiver.isStale(key))
        }
        #expect(try receiver.client.getQueryData(["user", 2], as: Profile.self) == large)
        for instance in fleet { await instance.link.stop() }
    }

    @Test func anInvalidationMarksTheSharedRowsStaleSoTheSingleFlightCallsTheUpstreamAgain() async throws {
        let fleet = try await Instance.fleet(2)
        let upstream = UpstreamCalls()
        let flights = fleet.map { PostgresSingleFlight(cache: $0.cache, freshFor: .seconds(3600)) }
        func fetch(_ index: Int, _ key: QueryKey) async throws -> Profile {
            try await fleet[index].client.fetchQuery(key) {
                try await flights[index].value(for: key, as: Profile.self) {
                    Profile(id: upstream.record(), name: "\(key)")
                }
            }
        }
        let keys: [QueryKey] = [
            ["user", 4], ["user", 42], ["user", 4, "posts"], ["list", ["page": 1, "size": 10]],
        ]
        for key in keys { _ = try await fetch(0, key) }
        #expect(upstream.count == 4)
        await fleet[0].client.invalidateQueries(["user", 4]).settled()
        await fleet[0].client.invalidateQueries(["list", ["page": 1]]).settled()
        await fleet[1].applied(2)
        for key in keys { _ = try await fetch(1, key) }  // the others' first read of each key
        // ["user", 4] and ["user", 4, "posts"] are under the prefix, the list's dictionary covers the stored
        // one; ["user", 42] is not under ["user", 4].
        #expect(upstream.count == 7)
        for instance in fleet { await instance.link.stop() }
    }

    /// A prefix invalidation marks its rows through the key's pattern index, not a scan of the table (which
    /// took 30 ms at 200,000 rows), and a table made before the index gets it; a newer table does not.
    @Test func prefixMarksUseThePatternIndexWhichOlderTablesGet() async throws {
        let (older, newer) = (TestServer.uniqueTable(), TestServer.uniqueTable())
        try await TestServer.withConnection { connection in
            for (table, version) in [(older, 1), (newer, 3)] {
                try await connection.query(
                    """
                    CREATE TABLE "\(unescaped: table)" (
                        key text PRIMARY KEY, value jsonb NOT NULL, type_name text NOT NULL, saved_at bigint NOT NULL,
                        expires_at bigint, bytes integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())
                    """, logger: connection.logger)
                try await connection.query(
                    "INSERT INTO loft_schema (name, version) VALUES (\(table), \(version))", logger: connection.logger)
            }
        }
        try await TestServer.cache(table: older).save(1, for: ["user", 1])
        await #expect(throws: CacheError.self) { try await TestServer.cache(table: newer).save(1, for: ["user", 1]) }
        let statement = try FleetMessage(
            origin: UUID(), change: SharedChange(.invalidate(.none), [.prefix(["user"]), .prefix(["post"])])
        ).statement(table: older, sequence: older + "_version", channel: "c")
        try await TestServer.withConnection { connection in
            let indexes = try await connection.query(
                "SELECT tablename FROM pg_indexes WHERE indexname LIKE '%_key_pattern' AND tablename IN (\(older), \(newer))",
                logger: connection.logger
            ).collect().map { try $0.decode(String.self) }
            #expect(indexes == [older])
            // However small the table, the plan must be able to use the index.
            try await connection.query("SET enable_seqscan = off", logger: connection.logger)
            let plan = try await connection.query(
                PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, binds: statement.binds), logger: connection.logger
            ).collect().map { try $0.decode(String.self) }.joined(separator: "\n")
            #expect(plan.contains("Index Scan on \(older)_key_pattern"), "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
        }
    }

    @Test func aClientSavingBackTheValueItReadDoesNotKeepTheRowFresh() async throws {
        let cache = try TestServer.cache()
        let now = SchedulerInstant(nanosecondsSinceEpoch: 1_000)
        func updatedAt() async throws -> String {
            try await TestServer.withConnection { connection in
                let rows = try await connection.query(
                    "SELECT updated_at::text FROM \(unescaped: cache.configuration.table)",
                    logger: Logger(label: "test"))
                return try await rows.collect().first?.decode(String.self) ?? "none"
            }
        }
        try await cache.save(Profile(id: 1, name: "Ada"), for: ["user", 1], savedAt: now, expiresAt: nil)
        let first = try await updatedAt()
        try await cache.save(Profile(id: 1, name: "Ada"), for: ["user", 1], savedAt: now, expiresAt: nil)
        #expect(try await updatedAt() == first)
        try await cache.save(Profile(id: 1, name: "Ada L."), for: ["user", 1], savedAt: now, expiresAt: nil)
        #expect(try await updatedAt() != first)
        try await TestServer.withConnection { connection in
            _ = try await connection.query(
                "UPDATE \(unescaped: cache.configuration.table) SET updated_at = '-infinity', saved_at = 0",
                logger: Logger(label: "test")
            ).collect()
        }
        try await cache.save(Profile(id: 1, name: "Ada L."), for: ["user", 1], savedAt: now, expiresAt: nil)
        #expect(try await updatedAt() == "-infinity")
        #expect(try await cache.get(Profile.self, for: ["user", 1])?.savedAt.nanosecondsSinceEpoch == 0)
    }

    @Test func anInstanceWhoseListeningConnectionWasLostTreatsEverythingAsStale() async throws {
        // The listening connection is found by its last statement, its LISTEN: no health check may run on it
        // first (its `SELECT 1` would take the LISTEN's place, nothing would be ended, and the waits below would
        // wait for a loss that never comes: on a loaded machine, the two seconds of the default passed once).
        let fleet = try await Instance.fleet(1, healthCheckInterval: .seconds(3600))
        let instance = fleet[0]
        let clientEvents = EventLog(instance.client.events)
        _ = try await instance.client.fetchQuery(["user", 1]) { Profile(id: 1, name: "Ada") }
        let channel = instance.link.channel
        let terminated = try await TestServer.withConnection { connection in
            try await connection.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = \("LISTEN \"\(channel)\";")",
                logger: Logger(label: "test")
            ).collect().count
        }
        #expect(terminated == 1)
        await instance.log.first { $0.isLost }
        await instance.log.first { $0.isResumed }
        await clientEvents.first { if case .changesMissed = $0 { true } else { false } }
        #expect(try instance.isStale(["user", 1]))
        await instance.link.stop()
    }

    @Test func aNotificationThatIsNotAChangeIsIgnored() async throws {
        let fleet = try await Instance.fleet(1)
        let instance = fleet[0]
        _ = try await instance.client.fetchQuery(["user", 1]) { Profile(id: 1, name: "Ada") }
        let origin = UUID().uuidString
        for payload in [
            "not a change", "loft-change 2 not-a-uuid 1\nremove\nfilter all any any",
            "loft-change 2 \(origin) 3\nexplode\nfilter all any any\nexact [\"user\",1]",
            "loft-change 2 \(origin) 3\nremove\nfilter all any any\nexact [\"user\",1",
            "loft-change 2 \(origin) -3\nremove\nfilter all any any\nexact [\"user\",1]",
            "loft-change 1 \(origin)\nremove\nfilter all any any\nexact [\"user\",1]",
        ] {
            try await TestServer.withConnection { connection in
                _ = try await connection.query(
                    "SELECT pg_notify(\(instance.link.channel), \(payload))", logger: Logger(label: "test")
                ).collect()
            }
        }
        await instance.log.count(5) { if case .ignored = $0 { true } else { false } }
        #expect(try instance.client.getQueryData(["user", 1], as: Profile.self) == Profile(id: 1, name: "Ada"))
        #expect(instance.log.count(where: \.isAppliedChange) == 0)
        await instance.link.stop()
    }

    @Test func aChangeThatCannotBeSentIsReported() async throws {
        let cache = try PostgresQueryCache(url: "postgres://postgres@127.0.0.1:1/loft", timeout: .seconds(2))
        let client = QueryClient(cache: cache)
        let link = PostgresFleetLink(client: client, cache: cache)
        let log = EventLog(link.events)
        link.start()
        await client.invalidateQueries(["user"]).settled()
        let failed = await log.first { if case .sendFailed = $0 { true } else { false } }
        guard case .sendFailed(let change, .unavailable)? = failed else {
            Issue.record("expected an unavailable store, got \(String(describing: failed))")
            return
        }
        #expect(change == SharedChange(.invalidate(.active), [.prefix(["user"])]))
        await log.first { $0.isLost }
        await link.stop()
    }
}
