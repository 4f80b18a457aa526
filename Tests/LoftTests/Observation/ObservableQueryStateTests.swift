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
        let harness = TestQueryClient()
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
        let harness = TestQueryClient()
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
        let harness = TestQueryClient()
        let mutation = Mutation<Int, Int>(client: harness.client) { $0 * 10 }
        let query = Query<Void, Int>(key: "q", behavior: .startImmediately(()), client: harness.client) { 7 }
        _ = try await mutation.mutate(4)
        #expect(await mutation.firstState { $0.value != nil }.value == 40)
        #expect(await query.firstState { $0.value != nil }.value == 7)
    }

    /// Checks that `change` reaches `source`'s state, its two publishers (each value once) and Observation.
    private static func expectChange<Source: ObservableQueryState>(
        of source: Source, to expected: String, in harness: TestQueryClient,
        sourceLocation: SourceLocation = #_sourceLocation, _ change: () async throws -> Void
    ) async throws where Source.Value: Equatable {
        let tracked = Locked(false)
        withObservationTracking {
            _ = source.state
        } onChange: {
            tracked.withLock { $0 = true }
        }
        let states = PublisherRecorder(source.statePublisher)
        let values = PublisherRecorder(source.valuePublisher)
        #expect(values.values.isEmpty, sourceLocation: sourceLocation)
        try await change()
        let shown = await source.firstState { $0.value.map { "\($0)" } == expected }
        await harness.client.waitUntilIdle()
        #expect(shown.value.map { "\($0)" } == expected, sourceLocation: sourceLocation)
        #expect(tracked.withLock { $0 }, sourceLocation: sourceLocation)
        #expect(states.values.first?.value == nil, sourceLocation: sourceLocation)
        #expect(states.values.last?.value.map { "\($0)" } == expected, sourceLocation: sourceLocation)
        #expect(values.values.map { "\($0)" } == [expected], sourceLocation: sourceLocation)
        // Reading again changes nothing, and a new subscriber gets the value at once.
        #expect(source.state.value.map { "\($0)" } == expected, sourceLocation: sourceLocation)
        #expect(PublisherRecorder(source.valuePublisher).values.map { "\($0)" } == [expected])
    }

    @Test("every observable type shows a change the same way: its state, statePublisher, valuePublisher, Observation")
    func everyTypeShowsAChangeTheSameWay() async throws {
        let harness = TestQueryClient()
        let client = harness.client
        let query = Query<Void, Int>(key: "n", client: client) { 1 }
        try await Self.expectChange(of: query, to: "1", in: harness) { query.refetch() }
        let consumer = Query<Void, Int>.Consumer(key: "c", client: client)
        try await Self.expectChange(of: consumer, to: "2", in: harness) { client.setQueryData(2, for: "c") }
        let tens = Query<Void, Int>(key: "t", client: client) { 3 }.select { $0 * 10 }
        try await Self.expectChange(of: tens, to: "30", in: harness) { client.setQueryData(3, for: "t") }
        let feed = InfiniteQuery<Int, Int>(
            key: "feed", initialPageParam: 0, getNextPageParam: { _, _, last, _ in last + 1 }, client: client
        ) { page in page + 40 }
        try await Self.expectChange(
            of: feed, to: "\(InfiniteData(pages: [40], pageParams: [0]))", in: harness
        ) { feed.fetchNextPage() }
        let pages = PaginatedQuery<Void, NumericPaginatedQueryKey, [Int]>(
            key: "pages", firstPage: NumericPaginatedQueryKey(current: 5), client: client
        ) { _, page in [page.current] }
        try await Self.expectChange(of: pages, to: "[5]", in: harness) { pages.refetch() }
        let stream = StreamedQuery<Int>(key: "stream", client: client) {
            AsyncStream { continuation in
                continuation.yield(6)
                continuation.finish()
            }
        }
        try await Self.expectChange(of: stream, to: "[6]", in: harness) { stream.refetch() }
        let mutation = Mutation<Int, Int>(client: client) { $0 + 1 }
        try await Self.expectChange(of: mutation, to: "7", in: harness) { _ = try await mutation.mutate(6) }
    }

    @Test("a consumer invalidates and cancels its key as its query would, and publishes its snapshots")
    func consumerControlsItsKey() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Void, Int>(.answer(1), .hang())
        let query = Query<Void, Int>(key: "k", behavior: .startImmediately(()), client: harness.client) {
            try await fetcher.fetch(())
        }
        await harness.client.waitUntilIdle()
        let consumer = Query<Void, Int>.Consumer(key: "k", client: harness.client)
        let snapshots = PublisherRecorder(consumer.snapshotPublisher)
        consumer.invalidate()
        await fetcher.waitForCalls(2)
        #expect(consumer.snapshot.isFetching)
        consumer.cancel()
        await harness.client.waitUntilIdle()
        #expect(!query.snapshot.isFetching)
        #expect(consumer.state.value == 1)
        #expect(snapshots.values.map(\.isFetching) == [false, true, false])
    }
}
