import Loft
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

@testable import LoftPostgres

/// Instances of a fleet, each a `PostgresSingleFlight` with connections of its own, on one table.
@Suite struct SingleFlightTests {
    @Test func threeInstancesOfAHundredCallersCallTheUpstreamOncePerKey() async throws {
        let table = TestServer.uniqueTable()
        let fleet = try (0..<3).map { _ in
            PostgresSingleFlight(cache: try TestServer.cache(table: table), freshFor: .seconds(60))
        }
        let (keys, callers) = (10, 100)
        let upstream = UpstreamCalls()
        let perKey = KeyedCounts()
        // The upstream answers once every caller has asked: no caller can come after the value is saved.
        let asked = UpstreamCalls()
        let (everyoneAsked, allAsked) = AsyncStream<Void>.makeStream()
        let gate = Gate(opened: everyoneAsked)
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for instance in fleet {
                for caller in 0..<callers {
                    let key = caller % keys
                    group.addTask {
                        if asked.record() == fleet.count * callers { allAsked.yield() }
                        let value = try await instance.value(for: ["item", .int(key)], as: Int.self) {
                            upstream.record()
                            perKey.record(key)
                            await gate.wait()
                            return key * 10
                        }
                        return (key, value)
                    }
                }
            }
            for try await (key, value) in group { #expect(value == key * 10) }
        }
        #expect(upstream.count == keys)
        #expect(perKey.counts == Dictionary(uniqueKeysWithValues: (0..<keys).map { ($0, 1) }))
    }

    @Test func aRowOfAnotherTypeIsAMissThatThreeInstancesFetchOnceAndReplace() async throws {
        let table = TestServer.uniqueTable()
        let caches = try (0..<3).map { _ in try TestServer.cache(table: table) }
        // What an instance of the previous deploy saved: a String where this one reads a Profile.
        try await caches[0].save("Ada, as an older type", for: ["user", 7])
        let fleet = caches.map { PostgresSingleFlight(cache: $0, freshFor: .seconds(60)) }
        let skipped = NIOLockedValueBox<[CacheError]>([])
        let subscriptions = fleet.map { instance in
            instance.skippedRows.sink { error in skipped.withLockedValue { $0.append(error) } }
        }
        let upstream = UpstreamCalls()
        try await withThrowingTaskGroup(of: Profile.self) { group in
            for instance in fleet {
                group.addTask {
                    try await instance.value(for: ["user", 7], as: Profile.self) {
                        upstream.record()
                        return Profile(id: 7, name: "Ada")
                    }
                }
            }
            for try await profile in group { #expect(profile == Profile(id: 7, name: "Ada")) }
        }
        #expect(upstream.count == 1)
        #expect(try await caches[1].get(Profile.self, for: ["user", 7])?.value == Profile(id: 7, name: "Ada"))
        let reports = skipped.withLockedValue { $0 }
        #expect(!reports.isEmpty)
        for report in reports {
            guard case .undecodableValue(let key, _, let expectedType, _) = report else {
                Issue.record("not an undecodable row: \(report)")
                continue
            }
            #expect(key == ["user", 7])
            #expect(expectedType.contains("Profile"))
        }
        _ = subscriptions
    }

    @Test func aFreshRowAnswersWithoutTheUpstream() async throws {
        let cache = try TestServer.cache()
        try await cache.save(Profile(id: 1, name: "saved"), for: ["user", 1])
        let fleet = PostgresSingleFlight(cache: cache, freshFor: .seconds(60))
        let profile = try await fleet.value(for: ["user", 1], as: Profile.self) {
            Issue.record("the upstream was called for a fresh row")
            return Profile(id: 1, name: "upstream")
        }
        #expect(profile == Profile(id: 1, name: "saved"))
    }

    @Test func whenTheInstanceThatFetchesDiesAnotherTakesOver() async throws {
        let table = TestServer.uniqueTable()
        let (first, second) = (
            PostgresSingleFlight(cache: try TestServer.cache(table: table), freshFor: .seconds(60)),
            PostgresSingleFlight(cache: try TestServer.cache(table: table), freshFor: .seconds(60))
        )
        let (firstStarted, started) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        let hanging = Gate(opened: released)
        let firstCall = Task {
            try await first.value(for: ["report"], as: String.self) {
                started.yield()
                await hanging.wait()
                return "first"
            }
        }
        for await _ in firstStarted { break }
        let secondCall = Task { try await second.value(for: ["report"], as: String.self) { "second" } }

        // The first instance's session goes, and its lock with it (what a killed process's does).
        let lock = PostgresSingleFlight.lockNumber(table: table, key: try PostgresQueryCache.text(of: ["report"]))
        let (high, low) = (Int64(UInt64(bitPattern: lock) >> 32), Int64(UInt64(bitPattern: lock) & 0xFFFF_FFFF))
        let terminated = try await TestServer.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'
                AND classid::bigint = \(high) AND objid::bigint = \(low) AND objsubid = 1
                """, logger: connection.logger)
            var count = 0
            for try await _ in rows { count += 1 }
            return count
        }
        #expect(terminated == 1)
        #expect(try await secondCall.value == "second")

        release.yield()
        #expect(try await firstCall.value == "first")
    }

    @Test func anUpstreamErrorReachesItsCallersAndTheNextCallTriesAgain() async throws {
        struct Down: Error {}
        let fleet = PostgresSingleFlight(cache: try TestServer.cache(), freshFor: .seconds(60))
        await #expect(throws: Down.self) {
            try await fleet.value(for: ["flaky"], as: Int.self) { throw Down() }
        }
        #expect(try await fleet.value(for: ["flaky"], as: Int.self) { 7 } == 7)
    }

    @Test func aServerThatIsNotThereIsUnavailable() async throws {
        let cache = try PostgresQueryCache(url: "postgres://postgres@127.0.0.1:\(try await closedPort())/loft")
        let fleet = PostgresSingleFlight(cache: cache, freshFor: .seconds(60))
        await #expect {
            try await fleet.value(for: ["one"], as: Int.self) { 1 }
        } throws: { error in
            guard case .unavailable = error as? CacheError else { return false }
            return true
        }
    }
}

/// How many times each key was fetched.
final class KeyedCounts: Sendable {
    private let storage = NIOLockedValueBox([Int: Int]())

    func record(_ key: Int) { storage.withLockedValue { $0[key, default: 0] += 1 } }
    var counts: [Int: Int] { storage.withLockedValue { $0 } }
}

/// Holds its waiters until its stream yields (or ends).
final class Gate: Sendable {
    private let isOpen = NIOLockedValueBox(false)
    private let waiters = NIOLockedValueBox<[CheckedContinuation<Void, Never>]>([])

    init(opened stream: AsyncStream<Void>) {
        Task { [self] in
            for await _ in stream { break }
            open()
        }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = isOpen.withLockedValue { isOpen -> Bool in
                if isOpen { return true }
                waiters.withLockedValue { $0.append(continuation) }
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func open() {
        let waiting = isOpen.withLockedValue { isOpen -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            return waiters.withLockedValue { waiters in
                defer { waiters = [] }
                return waiters
            }
        }
        for waiter in waiting { waiter.resume() }
    }
}
