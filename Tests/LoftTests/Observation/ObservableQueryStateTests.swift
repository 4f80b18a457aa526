import LoftTesting
import Observation
import Testing

@testable import Loft

/// Every observable type conforms to `LoftObservable` (those that show one state through
/// `ObservableQueryState`): code written once against it works for all.
@Suite struct ObservableQueryStateTests {
    /// A helper written once, for every observable type.
    private static func shown<Source: ObservableQueryState>(_ source: Source) -> String {
        source.state.value.map { "\($0)" } ?? "nothing"
    }

    /// A helper written once against the base protocol.
    private static func described<Source: LoftObservable>(_ source: Source) -> String {
        "\(source.observed)"
    }

    @Test("Queries and a query are observed through the one base protocol; first(where:) waits for either")
    func queriesAndQueriesShareTheBaseProtocol() async {
        let harness = Harness()
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let queries = Queries(
            [QueriesMember(key: "a") { () async throws -> Int in try await fetcher.fetch(()) }],
            client: harness.client
        ) { results in results.value(for: "a", as: Int.self) ?? 0 }
        let query = Query<Void, Int>(key: "a", client: harness.client) { 2 }
        #expect(Self.described(queries) == "0")
        #expect(query.observed.value == nil)
        await fetcher.waitForCalls(1)
        let tracked = Locked(false)
        withObservationTracking {
            _ = queries.observed
        } onChange: {
            tracked.withLock { $0 = true }
        }
        let published = PublisherRecorder(queries.observedPublisher)
        fetcher.release(returning: 2)
        #expect(await queries.first { $0 == 2 } == 2)
        #expect(await query.first { $0.value != nil }.value == 2)
        await harness.client.waitUntilIdle()  // the write that published 2 has also told the registrar
        #expect(Self.described(queries) == "2")
        #expect(tracked.withLock { $0 })
        #expect(published.values.first == 0)
        #expect(published.values.last == 2)
    }

    @Test("a query, a consumer, a selection and a mutation read through the protocol")
    func everyTypeReadsThroughTheProtocol() async throws {
        let harness = Harness()
        harness.client.setQueryData(3, for: "n")
        let query = Query<Void, Int>(key: "n", options: QueryOptions(staleTime: .infinity), client: harness.client) {
            3
        }
        let consumer = Query<Void, Int>.Consumer(key: "n", client: harness.client)
        let doubled = query.select { $0 * 2 }
        let mutation = Mutation<Int, Int>(client: harness.client) { $0 + 1 }
        #expect(Self.shown(query) == "3")
        #expect(Self.shown(consumer) == "3")
        #expect(Self.shown(doubled) == "6")
        #expect(Self.shown(mutation) == "nothing")
        _ = try await mutation.mutate(41)
        #expect(Self.shown(mutation) == "42")
    }

    @Test("the testing helper written once waits for a mutation's state as for a query's")
    func firstStateWorksForEveryType() async throws {
        let harness = Harness()
        let mutation = Mutation<Int, Int>(client: harness.client) { $0 * 10 }
        let query = Query<Void, Int>(key: "q", behavior: .startImmediately(()), client: harness.client) { 7 }
        _ = try await mutation.mutate(4)
        #expect(await mutation.firstState { $0.value != nil }.value == 40)
        #expect(await query.firstState { $0.value != nil }.value == 7)
    }
}
