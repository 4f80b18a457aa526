import Signals
import TestSupport
import Testing

@Suite struct SourcesTests {
    @Test("Just delivers its value then finishes, to each subscriber")
    func just() {
        #expect(Just(7).record().events == [.value(7), .finished])
        #expect(Just(7).record().events == [.value(7), .finished])
    }

    @Test("Just delivers nothing to a subscriber that cancels on receiving its subscription")
    func justCancelledAtOnce() {
        let recorder = Recorder<Int, Never>()
        Just(1).subscribe(AnySubscriber(receiveSubscription: { $0.cancel() }, receiveValue: recorder.receive))
        #expect(recorder.events.isEmpty)
    }

    @Test("Fail fails at once")
    func fail() {
        #expect(Fail<Int, TestError>(error: .boom).record().events == [.failure("boom")])
        #expect(Fail(outputType: Int.self, failure: TestError.other).record().events == [.failure("other")])
    }

    @Test("Empty finishes at once, or never")
    func empty() {
        #expect(Empty<Int, Never>().record().events == [.finished])
        #expect(Empty<Int, Never>(completeImmediately: false).record().events == [])
    }

    @Test("a sequence's publisher delivers each element in order; a cancel stops it")
    func sequence() {
        #expect([1, 2, 3].publisher.record().events == [.value(1), .value(2), .value(3), .finished])
        let stopped = [1, 2, 3].publisher.record { value, recorder in if value == 2 { recorder.cancel() } }
        #expect(stopped.events == [.value(1), .value(2)])
    }

    @Test("Deferred makes a new publisher per subscriber")
    func deferred() {
        let count = Box(0)
        let deferred = Deferred {
            Just(
                count.mutate {
                    $0 += 1; return $0
                })
        }
        #expect(count.value == 0)
        #expect(deferred.record().values == [1])
        #expect(deferred.record().values == [2])
    }

    @Test("Future runs at once, and every subscriber, early or late, gets the one result")
    func future() {
        let promise = Box<Future<Int, TestError>.Promise?>(nil)
        let runs = Box(0)
        let future = Future<Int, TestError> { fulfil in
            runs.mutate { $0 += 1 }
            promise.value = fulfil
        }
        #expect(runs.value == 1)
        let early = future.record()
        #expect(early.events == [])
        promise.value?(.success(5))
        promise.value?(.success(6))
        promise.value?(.failure(.boom))
        #expect(early.events == [.value(5), .finished])
        #expect(future.record().events == [.value(5), .finished])
    }

    @Test("a Future's failure reaches every subscriber; a cancelled one gets nothing")
    func futureFailure() {
        let promise = Box<Future<Int, TestError>.Promise?>(nil)
        let future = Future<Int, TestError> { promise.value = $0 }
        let cancelled = future.record()
        cancelled.cancel()
        promise.value?(.failure(.boom))
        #expect(cancelled.events == [])
        #expect(future.record().events == [.failure("boom")])
    }

    @Test("AsyncFuture runs the closure per subscription and delivers its value")
    func asyncFutureValue() async throws {
        let future = AsyncFuture<Int, Never> { 42 }
        var values: [Int] = []
        for await value in future.values { values.append(value) }
        #expect(values == [42])
    }

    @Test("AsyncFuture delivers a thrown error as a failure")
    func asyncFutureFailure() async {
        let future = AsyncFuture<Int, TestError> { () async throws(TestError) -> Int in throw .boom }
        await #expect(throws: TestError.boom) {
            for try await _ in future.values {}
        }
    }

    @Test("cancelling an AsyncFuture's subscription cancels its task and delivers nothing")
    func asyncFutureCancel() async {
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (cancelled, cancelledContinuation) = AsyncStream<Void>.makeStream()
        let (never, _) = AsyncStream<Void>.makeStream()
        let future = AsyncFuture<Int, Never> {
            await withTaskCancellationHandler {
                startedContinuation.yield()
                for await _ in never {}
                return 1
            } onCancel: {
                cancelledContinuation.yield()
            }
        }
        let recorder = future.record()
        for await _ in started { break }
        recorder.cancel()
        for await _ in cancelled { break }
        #expect(recorder.events == [])
    }
}
