import LoftTesting
import Testing

@testable import Loft

/// Streams a test feeds by hand: each `open()` makes a new stream and keeps its continuation.
final class StreamSource: Sendable {
    private struct State {
        var continuations: [AsyncThrowingStream<String, any Error>.Continuation] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    var openCount: Int { state.withLock { $0.continuations.count } }

    func open() -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.continuations.append(continuation)
                let count = state.continuations.count
                defer { state.watchers.removeAll { $0.count <= count } }
                return state.watchers.filter { $0.count <= count }.map(\.continuation)
            }
            for watcher in ready { watcher.resume() }
        }
    }

    /// Returns once `count` streams were opened: a barrier, never a sleep.
    func waitUntilOpened(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state -> Bool in
                guard state.continuations.count < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if isOpen { continuation.resume() }
        }
    }

    func send(_ element: String, on stream: Int) {
        _ = state.withLock { $0.continuations[stream] }.yield(element)
    }

    func finish(_ stream: Int, throwing error: (any Error)? = nil) {
        state.withLock { $0.continuations[stream] }.finish(throwing: error)
    }
}

/// A streamed query of `"log"` on a fresh client, its source, and a consumer to await its states with.
struct StreamFixture {
    let harness = TestQueryClient()
    let source = StreamSource()
    let log: StreamedQuery<String>
    let consumer: Query<Void, [String]>.Consumer

    /// Opens the stream and returns once it is open.
    static func opened() async -> StreamFixture {
        let fixture = StreamFixture()
        await fixture.source.waitUntilOpened(1)
        return fixture
    }

    init() {
        let source = source
        log = StreamedQuery<String>(
            key: "log", behavior: .startImmediately(()), options: QueryOptions(retry: .never), client: harness.client
        ) { source.open() }
        consumer = Query<Void, [String]>.Consumer(key: "log", client: harness.client)
    }

    /// Sends `element` on stream `stream` and returns once the query shows it last.
    func send(_ element: String, on stream: Int) async {
        source.send(element, on: stream)
        _ = await consumer.firstState { $0.value?.last == element }
    }
}

@Suite struct StreamedQueryTests {
    @Test("elements accumulate in order; the fetch ends when the stream finishes")
    func accumulates() async {
        let fixture = StreamFixture()
        let (harness, source, log) = (fixture.harness, fixture.source, fixture.log)
        #expect(log.state.isLoading)
        await source.waitUntilOpened(1)
        for line in ["a", "b", "c"] {
            await fixture.send(line, on: 0)
        }
        #expect(log.state.value == ["a", "b", "c"])
        #expect(log.snapshot.isFetching)
        source.finish(0)
        await harness.client.waitUntilIdle()
        #expect(!log.snapshot.isFetching)
        #expect(log.state.value == ["a", "b", "c"])
    }

    @Test("refetch restarts the stream; the old elements stay until the new stream's first")
    func refetchRestarts() async {
        let fixture = await StreamFixture.opened()
        let (harness, source, log) = (fixture.harness, fixture.source, fixture.log)
        await fixture.send("old", on: 0)
        log.refetch()
        #expect(log.state.value == ["old"])
        await source.waitUntilOpened(2)
        await fixture.send("new", on: 1)
        source.send("newer", on: 1)
        source.finish(1)
        await harness.client.waitUntilIdle()
        #expect(log.state.value == ["new", "newer"])
        #expect(source.openCount == 2)
    }

    @Test("refetch returns a handle whose value is the new stream's elements once it finished")
    func refetchHandle() async throws {
        let fixture = await StreamFixture.opened()
        let (source, log) = (fixture.source, fixture.log)
        await fixture.send("old", on: 0)
        let started = log.refetch()
        await source.waitUntilOpened(2)
        await fixture.send("new", on: 1)
        source.finish(1)
        #expect(try await started.value == ["new"])
    }

    @Test("invalidate opens a finished stream again; valuePublisher sends the elements after each new one")
    func invalidateReopens() async {
        let fixture = await StreamFixture.opened()
        let (harness, source, log) = (fixture.harness, fixture.source, fixture.log)
        let values = PublisherRecorder(log.valuePublisher)
        await fixture.send("a", on: 0)
        source.finish(0)
        await harness.client.waitUntilIdle()
        log.invalidate()
        await source.waitUntilOpened(2)
        await fixture.send("b", on: 1)
        source.finish(1)
        await harness.client.waitUntilIdle()
        #expect(source.openCount == 2)
        #expect(log.state.value == ["b"])
        #expect(values.values == [["a"], ["b"]])
    }

    @Test("a stream that throws keeps its elements and exposes the error; cancel keeps them too")
    func failureKeepsElements() async {
        let fixture = await StreamFixture.opened()
        let (harness, source, log) = (fixture.harness, fixture.source, fixture.log)
        await fixture.send("a", on: 0)
        source.finish(0, throwing: APIError.offline)
        await harness.client.waitUntilIdle()
        #expect(log.state.value == ["a"])
        #expect(log.snapshot.error as? APIError == .offline)

        log.refetch()
        await source.waitUntilOpened(2)
        await fixture.send("b", on: 1)
        log.cancel()
        await harness.client.waitUntilIdle()
        #expect(log.state.value == ["b"])
        #expect(!log.snapshot.isFetching)
    }

    @Test("a publisher works as a stream")
    func publisherStream() async {
        let harness = TestQueryClient()
        let log = StreamedQuery<Int>(
            key: "numbers", behavior: .startImmediately(()), client: harness.client
        ) { [1, 2, 3].publisher }
        await harness.client.waitUntilIdle()
        #expect(log.state.value == [1, 2, 3])
    }
}
