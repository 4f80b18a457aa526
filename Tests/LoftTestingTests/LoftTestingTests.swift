import LoftTesting
import Testing

enum ScriptError: Error, Equatable {
    case down
}

@Suite struct LoftTestingTests {
    @Test("LoftTesting re-exports Loft and Signals, TestScheduler included")
    func reexports() {
        let scheduler = TestScheduler()
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.now == TestScheduler.epoch + .seconds(1))
    }

    @Test("a scripted fetcher plays its steps in order, repeats the last, and records every request")
    func steps() async throws {
        let fetcher = ScriptedFetcher<Int, String>(.answer("a"), .fail(ScriptError.down), .answer("c"))
        #expect(try await fetcher.fetch(1) == "a")
        await #expect(throws: ScriptError.down) { try await fetcher.fetch(2) }
        #expect(try await fetcher.fetch(3) == "c")
        #expect(try await fetcher.fetch(4) == "c")
        #expect(fetcher.callCount == 4)
        #expect(fetcher.requests == [1, 2, 3, 4])
    }

    @Test("a hanging call waits until released; waitForCalls is a barrier, not a sleep")
    func hangAndRelease() async throws {
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let call = Task { try await fetcher.fetch(()) }
        await fetcher.waitForCalls(1)
        #expect(fetcher.callCount == 1)
        #expect(fetcher.hangingCount == 1)
        fetcher.release(returning: 9)
        #expect(try await call.value == 9)
    }

    @Test("a hanging call ends with CancellationError when its task is cancelled, unless it ignores cancellation")
    func cancellation() async {
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let call = Task { try await fetcher.fetch(()) }
        await fetcher.waitForCalls(1)
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    @Test("firstState waits for a query to reach a state")
    func firstState() async {
        let client = QueryClient(scheduler: TestScheduler())
        let query = Query<Void, Int>(key: "n", client: client) { 5 }
        query.refetch()
        let state = await query.firstState { $0.value != nil }
        #expect(state.value == 5)
    }

    @Test("a publisher recorder records what a publisher sends")
    func recorder() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = PublisherRecorder(subject)
        subject.send(1)
        subject.send(2)
        #expect(recorder.values == [1, 2])
    }
}

@Suite struct ScriptedFetcherCancellationTests {
    @Test("a call made by an already-cancelled task does not hang")
    func cancelledBeforeParking() async {
        let fetcher = ScriptedFetcher<Void, Int>(.hang())
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fetcher.fetch(())
        }
        await #expect(throws: CancellationError.self) { try await call.value }
    }
}
