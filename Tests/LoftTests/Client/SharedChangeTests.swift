import Foundation
import LoftTesting
import TestSupport
import Testing

@testable import Loft

/// Sharing a client's changes with other clients: what its caller changes is published, what another client
/// changed is applied without being published again.
@Suite struct SharedChangeTests {
    /// A value that cannot travel as JSON.
    private struct Opaque: Sendable, Equatable { let number: Int }

    @Test("each change a caller makes is published once, as the receiver needs it")
    func published() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        let client = harness.client
        let changes = PublisherRecorder(client.sharedChanges)
        _ = try await client.fetchQuery(["user", 1]) { User(id: 1, name: "Ada") }
        Self.invalidateWithoutWaiting(client) { $0.invalidateQueries(["user"]) }
        await client.invalidateQueries(["user", 1], exact: true, filter: QueryFilter(type: .inactive, isStale: true))
            .settled()
        Self.invalidateWithoutWaiting(client) { $0.invalidateQueries(tagged: "todos", refetchType: .none) }
        await client.invalidateQueries(tagged: ["todo", 7], exact: true).settled()
        Self.invalidateWithoutWaiting(client) {
            $0.invalidate([.tag("todos"), .prefix(["lists"]), .exact(["todo", 9])])
        }
        client.setQueryData(User(id: 2, name: "Bo"), for: ["user", 2])
        try client.setQueryData(for: ["user", 2]) { (old: User?) in old.map { User(id: $0.id, name: "Bob") } }
        try client.setQueryData(for: ["user", 2]) { (_: User?) in nil }  // no change, nothing published
        client.setQueryData(Opaque(number: 3), for: ["opaque"])
        client.setQueriesData(matching: ["user"], as: User.self) { User(id: $0.id, name: $0.name + "!") }
        client.removeQueries(["opaque"], exact: true)
        #expect(
            Array(changes.values.prefix(8)) == [
                SharedChange(.invalidate(.active), [.prefix(["user"])]),
                SharedChange(
                    .invalidate(.active), [.exact(["user", 1])],
                    filter: .init(QueryFilter(type: .inactive, isStale: true))),
                SharedChange(.invalidate(.none), [.tag("todos")]),
                SharedChange(.invalidate(.active), [.exactTag(["todo", 7])]),
                SharedChange(.invalidate(.active), [.tag("todos"), .prefix(["lists"]), .exact(["todo", 9])]),
                SharedChange(.setData(json: #"{"id":2,"name":"Bo"}"#), [.exact(["user", 2])]),
                SharedChange(.setData(json: #"{"id":2,"name":"Bob"}"#), [.exact(["user", 2])]),
                SharedChange(.setData(json: nil), [.exact(["opaque"])]),
            ])
        // `setQueriesData`: one change per key it changed, in the prefix index's order.
        #expect(
            Set(changes.values.dropFirst(8).prefix(2)) == [
                SharedChange(.setData(json: #"{"id":1,"name":"Ada!"}"#), [.exact(["user", 1])]),
                SharedChange(.setData(json: #"{"id":2,"name":"Bob!"}"#), [.exact(["user", 2])]),
            ])
        #expect(changes.values.dropFirst(10) == [SharedChange(.remove, [.exact(["opaque"])])])
    }

    /// Runs `operation` in a synchronous context, where the forms that do not wait are chosen.
    private static func invalidateWithoutWaiting(_ client: QueryClient, _ operation: (QueryClient) -> Void) {
        operation(client)
    }

    @Test("what the client does by itself is not published: fetches, garbage collection, clear, a streamed query")
    func ownWorkIsNotPublished() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(gcTime: .seconds(5)))
        let client = harness.client
        let changes = PublisherRecorder(client.sharedChanges)
        _ = try await client.fetchQuery(["user", 1]) { User(id: 1, name: "Ada") }
        await harness.advance(by: .seconds(6))
        #expect(client.existingEntry(for: ["user", 1]) == nil)  // collected
        _ = try await client.fetchQuery(["user", 2]) { User(id: 2, name: "Bo") }
        client.clear()
        let stream = StreamedQuery<Int>(key: ["ticks"], behavior: .startImmediately(()), client: client) {
            AsyncThrowingStream { continuation in
                continuation.yield(1)
                continuation.finish()
            }
        }
        await client.waitUntilIdle()
        #expect(stream.state.value == [1])
        #expect(changes.values.isEmpty)
    }

    @Test("two clients linked both ways: a change reaches the other once, and comes back to nobody")
    func noLoop() async throws {
        let (first, second) = (TestQueryClient(), TestQueryClient(defaults: QueryDefaults(staleTime: .infinity)))
        let firstChanges = PublisherRecorder(first.client.sharedChanges)
        let secondChanges = PublisherRecorder(second.client.sharedChanges)
        let links = [
            first.client.sharedChanges.sink { second.client.apply($0) },
            second.client.sharedChanges.sink { first.client.apply($0) },
        ]
        _ = try await second.client.fetchQuery(["user", 1]) { User(id: 1, name: "Ada") }
        #expect(try !second.client.snapshot(for: ["user", 1], as: User.self).isStale)
        await first.client.invalidateQueries(["user"]).settled()
        #expect(try second.client.snapshot(for: ["user", 1], as: User.self).isStale)
        #expect(firstChanges.values.count == 1)
        #expect(secondChanges.values.isEmpty)
        for link in links { link.cancel() }
    }

    @Test("an invalidation is published before the client acts on it, a value after it is set")
    func order() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        let client = harness.client
        _ = try await client.fetchQuery(["user", 1]) { User(id: 1, name: "Ada") }
        let seen = Box<[Bool]>([])
        let subscription = client.sharedChanges.sink { _ in
            let snapshot = try? client.snapshot(for: ["user", 1], as: User.self)
            seen.value.append(snapshot?.isStale == true || snapshot?.data?.name == "Bo")
        }
        Self.invalidateWithoutWaiting(client) { $0.invalidateQueries(["user"]) }
        client.setQueryData(User(id: 1, name: "Bo"), for: ["user", 1])
        #expect(seen.value == [false, true])
        subscription.cancel()
    }

    @Test("an applied invalidation refetches the receiver's active entries, with the same filter")
    func appliedInvalidation() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2))
        let query = Query<Void, Int>(
            key: ["todo", 7], behavior: .startImmediately(()), options: QueryOptions(tags: ["todos"]),
            client: harness.client, fetcher: fetcher.fetch)
        _ = try await harness.client.fetchQuery(["todo", 8]) { 8 }
        await harness.client.waitUntilIdle()
        harness.client.apply(SharedChange(.invalidate(.active), [.tag("todos")]))
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 2)
        #expect(harness.fetchReasons(for: ["todo", 7]) == [.firstUse, .invalidation])
        #expect(try !harness.client.snapshot(for: ["todo", 8], as: Int.self).isStale)
        harness.client.apply(
            SharedChange(.invalidate(.none), [.prefix(["todo"])], filter: .init(QueryFilter(type: .inactive))))
        #expect(try harness.client.snapshot(for: ["todo", 8], as: Int.self).isStale)
        #expect(try !harness.client.snapshot(for: ["todo", 7], as: Int.self).isStale)
    }

    @Test("a predicate cannot travel: the receiver acts on every entry the rest of the filter matches")
    func predicateLeftOut() async throws {
        let (sender, receiver) = (TestQueryClient(), TestQueryClient(defaults: QueryDefaults(staleTime: .infinity)))
        let changes = PublisherRecorder(sender.client.sharedChanges)
        _ = try await receiver.client.fetchQuery(["user", 1]) { 1 }
        _ = try await receiver.client.fetchQuery(["user", 2]) { 2 }
        sender.client.removeQueries(["user"], filter: QueryFilter(predicate: { $0.key == ["user", 1] }))
        for change in changes.values { receiver.client.apply(change) }
        #expect(receiver.client.existingEntry(for: ["user", 1]) == nil)
        #expect(receiver.client.existingEntry(for: ["user", 2]) == nil)
    }

    @Test("an applied value is decoded as the type held; another type, no value or no data invalidates instead")
    func appliedData() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        let client = harness.client
        let changes = PublisherRecorder(client.sharedChanges)
        _ = try await client.fetchQuery(["user", 1]) { User(id: 1, name: "Ada") }
        client.apply(SharedChange(.setData(json: #"{"id":1,"name":"Ada L."}"#), [.exact(["user", 1])]))
        #expect(try client.getQueryData(["user", 1], as: User.self) == User(id: 1, name: "Ada L."))
        #expect(try !client.snapshot(for: ["user", 1], as: User.self).isStale)
        client.apply(SharedChange(.setData(json: #"{"title":"not a user"}"#), [.exact(["user", 1])]))
        #expect(try client.getQueryData(["user", 1], as: User.self) == User(id: 1, name: "Ada L."))
        #expect(try client.snapshot(for: ["user", 1], as: User.self).isStale)
        _ = try await client.fetchQuery(["user", 2]) { User(id: 2, name: "Bo") }
        client.apply(SharedChange(.setData(json: nil), [.exact(["user", 2])]))
        #expect(try client.snapshot(for: ["user", 2], as: User.self).isStale)
        client.apply(SharedChange(.setData(json: #"{"id":3,"name":"Cy"}"#), [.exact(["user", 3])]))
        #expect(client.existingEntry(for: ["user", 3]) == nil)
        #expect(changes.values.isEmpty)
    }

    @Test("missed changes mark every entry stale, refetch the active ones, and say so in the events")
    func missed() async throws {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .infinity))
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .answer(2))
        let query = Query<Void, Int>(
            key: ["todo", 7], behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        _ = try await harness.client.fetchQuery(["user", 1]) { 1 }
        await harness.client.waitUntilIdle()
        harness.client.changesMissed(from: "fleet link")
        await harness.client.waitUntilIdle()
        #expect(query.state.value == 2)
        #expect(try harness.client.snapshot(for: ["user", 1], as: Int.self).isStale)
        let event = harness.events.values.last { if case .changesMissed = $0 { true } else { false } }
        #expect(event?.description == "changesMissed from fleet link: every entry is stale")
    }

    @Test("versioned changes arriving in any order leave every client with the newest one's value")
    func versionedChangesConverge() async throws {
        var random = SeededRandom(seed: 0x5EED)
        for _ in 0..<50 {
            // Sets and invalidations of one key, numbered as a store would; each client gets them all, in an
            // order of its own.
            let changes = (1...8).map { version -> SharedChange in
                let operation: SharedChange.Operation =
                    Bool.random(using: &random) ? .setData(json: "\(version * 10)") : .invalidate(.none)
                return SharedChange(operation, [.exact(["k"])], version: Int64(version))
            }
            let newestValue = changes.last { if case .setData = $0.operation { true } else { false } }?.version
            var finals: [Int] = []
            for _ in 0..<3 {
                let harness = TestQueryClient()
                harness.client.setQueryData(0, for: ["k"])
                for change in changes.shuffled(using: &random) { harness.client.apply(change) }
                finals.append(try #require(try harness.client.getQueryData(["k"], as: Int.self)))
            }
            #expect(Set(finals).count == 1)
            #expect(finals[0] == Int(newestValue ?? 0) * 10)
        }
    }

    @Test("a versioned change an entry already holds (or holds a newer one of) is ignored; a removal acts")
    func versionedChangesAreIgnoredWhenOld() throws {
        let harness = TestQueryClient()
        harness.client.setQueryData(1, for: ["k"])
        harness.client.apply(SharedChange(.setData(json: "5"), [.exact(["k"])], version: 5))
        harness.client.apply(SharedChange(.setData(json: "4"), [.exact(["k"])], version: 4))
        harness.client.apply(SharedChange(.invalidate(.none), [.exact(["k"])], version: 5))
        #expect(try harness.client.getQueryData(["k"], as: Int.self) == 5)
        #expect(harness.client.existingEntry(for: ["k"])?.snapshot.isInvalidated == false)
        harness.client.apply(SharedChange(.remove, [.exact(["k"])], version: 3))
        #expect(harness.client.existingEntry(for: ["k"]) == nil)
    }

    @Test("every change reads back from its JSON")
    func codable() throws {
        let changes = [
            SharedChange(
                .invalidate(.inactive), [.prefix(["user", ["page": 2]]), .exactTag("todos")],
                filter: .init(QueryFilter(type: .active, isStale: false, fetchStatus: .paused))),
            SharedChange(.remove, [.exact(["user", 1.5]), .tag(["todo", 7])]),
            SharedChange(.setData(json: #"{"a":1}"#), [.exact(["a"])]),
            SharedChange(.setData(json: nil), [.exact(["a"])]),
        ]
        for change in changes {
            let json = try JSONEncoder().encode(change)
            #expect(try JSONDecoder().decode(SharedChange.self, from: json) == change)
        }
        #expect(changes[0].description == "invalidate(inactive) prefix user/{page:2}, exactTag #todos")
    }
}
