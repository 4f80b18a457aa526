import Signals
import TestSupport
import Testing

@Suite struct TransformOperatorTests {
    @Test("map transforms values and passes the completion")
    func map() {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = subject.map { $0 * 10 }.record()
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(.boom))
        #expect(recorder.events == [.value(10), .value(20), .failure("boom")])
    }

    @Test("tryMap passes values; a throw fails the stream and cancels upstream")
    func tryMap() {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = subject.tryMap { value -> Int in
            if value == 2 { throw TestError.other }
            return value
        }.record()
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(recorder.events == [.value(1), .failure("other")])
        #expect(subject.subscriberCount == 0)
    }

    @Test("tryMap passes the upstream's failure on as any Error")
    func tryMapUpstreamFailure() {
        let recorder = Fail<Int, TestError>(error: .boom).tryMap { $0 }.record()
        #expect(recorder.events == [.failure("boom")])
    }

    @Test("compactMap drops nil results")
    func compactMap() {
        let recorder = ["1", "x", "3"].publisher.compactMap { Int($0) }.record()
        #expect(recorder.events == [.value(1), .value(3), .finished])
    }

    @Test("filter keeps the values that pass")
    func filter() {
        #expect(
            [1, 2, 3, 4].publisher.filter { $0.isMultiple(of: 2) }.record().events == [.value(2), .value(4), .finished])
    }

    @Test("mapError transforms the failure; setFailureType only changes the type")
    func mapErrorAndSetFailureType() {
        let mapped = Fail<Int, TestError>(error: .boom).mapError { _ in TestError.other }.record()
        #expect(mapped.events == [.failure("other")])
        let typed = Just(1).setFailureType(to: TestError.self).record()
        #expect(typed.events == [.value(1), .finished])
    }

    @Test("removeDuplicates drops a value equal to the previous one")
    func removeDuplicates() {
        let recorder = [1, 1, 2, 2, 1, 3, 3].publisher.removeDuplicates().record()
        #expect(recorder.values == [1, 2, 1, 3])
    }

    @Test("removeDuplicates(by:) uses the predicate against the last passed value")
    func removeDuplicatesBy() {
        let recorder = [1, 2, 10, 11, 25].publisher.removeDuplicates { $1 - $0 < 5 }.record()
        #expect(recorder.values == [1, 10, 25])
    }

    @Test("scan emits the running accumulation, afresh for each subscriber")
    func scan() {
        let publisher = [1, 2, 3].publisher.scan(0, +)
        #expect(publisher.record().events == [.value(1), .value(3), .value(6), .finished])
        #expect(publisher.record().values == [1, 3, 6])
    }

    @Test("collect emits every value as one array when the upstream finishes")
    func collect() {
        #expect([1, 2, 3].publisher.collect().record().events == [.value([1, 2, 3]), .finished])
        let subject = PassthroughSubject<Int, TestError>()
        let failed = subject.collect().record()
        subject.send(1)
        subject.send(completion: .failure(.boom))
        #expect(failed.events == [.failure("boom")])
    }

    @Test("first emits the first value, finishes and cancels the upstream")
    func first() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.first().record()
        subject.send(1)
        subject.send(2)
        #expect(recorder.events == [.value(1), .finished])
        #expect(subject.subscriberCount == 0)
    }

    @Test("first(where:) emits the first match; finishes empty when the upstream ends first")
    func firstWhere() {
        #expect([1, 2, 3, 4].publisher.first { $0 > 2 }.record().events == [.value(3), .finished])
        #expect([1, 2].publisher.first { $0 > 2 }.record().events == [.finished])
    }

    @Test("handleEvents sees every event and the cancel, without changing them")
    func handleEvents() {
        let log = Box<[String]>([])
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.handleEvents(
            receiveSubscription: { _ in log.mutate { $0.append("subscribe") } },
            receiveOutput: { value in log.mutate { $0.append("value \(value)") } },
            receiveCompletion: { _ in log.mutate { $0.append("completion") } },
            receiveCancel: { log.mutate { $0.append("cancel") } }
        ).record()
        subject.send(1)
        recorder.cancel()
        subject.send(2)
        #expect(log.value == ["subscribe", "value 1", "cancel"])
        #expect(recorder.values == [1])
        let finished = Just(3).handleEvents(receiveCompletion: { _ in log.mutate { $0.append("done") } }).record()
        #expect(finished.events == [.value(3), .finished])
        #expect(log.value.last == "done")
    }

    @Test("replaceError turns a failure into one last value and a normal finish")
    func replaceError() {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = subject.replaceError(with: -1).record()
        subject.send(1)
        subject.send(completion: .failure(.boom))
        #expect(recorder.events == [.value(1), .value(-1), .finished])
    }

    @Test("catch switches to the handler's publisher on failure")
    func catchFailure() {
        let subject = PassthroughSubject<Int, TestError>()
        let fallback = PassthroughSubject<Int, Never>()
        let recorder = subject.catch { _ in fallback }.record()
        subject.send(1)
        subject.send(completion: .failure(.boom))
        fallback.send(2)
        fallback.send(completion: .finished)
        #expect(recorder.events == [.value(1), .value(2), .finished])
    }

    @Test("catch lets a normal finish through and cancels the handler's publisher on cancel")
    func catchFinishAndCancel() {
        #expect(
            Just(1).setFailureType(to: TestError.self).catch { _ in Just(2) }.record().events == [.value(1), .finished])
        let fallback = PassthroughSubject<Int, Never>()
        let recorder = Fail<Int, TestError>(error: .boom).catch { _ in fallback }.record()
        #expect(fallback.subscriberCount == 1)
        recorder.cancel()
        #expect(fallback.subscriberCount == 0)
    }

    @Test("prepend emits its values first; append after the upstream finishes")
    func prependAndAppend() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.prepend(-1, 0).append(99).record()
        #expect(recorder.values == [-1, 0])
        subject.send(1)
        subject.send(completion: .finished)
        #expect(recorder.events == [.value(-1), .value(0), .value(1), .value(99), .finished])
    }

    @Test("prepend with a publisher subscribes to the upstream only after it finishes")
    func prependPublisher() {
        let prefix = PassthroughSubject<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.prepend(prefix).record()
        #expect(subject.subscriberCount == 0)
        prefix.send(1)
        prefix.send(completion: .finished)
        #expect(subject.subscriberCount == 1)
        subject.send(2)
        #expect(recorder.values == [1, 2])
    }
}
