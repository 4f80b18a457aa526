import Signals
import TestSupport
import Testing

@Suite struct ErasureTests {
    @Test("AnyPublisher passes every event through, and erasing twice does not nest")
    func anyPublisher() {
        let subject = PassthroughSubject<Int, TestError>()
        let erased = subject.eraseToAnyPublisher().eraseToAnyPublisher()
        let recorder = erased.record()
        subject.send(1)
        subject.send(completion: .failure(.boom))
        #expect(recorder.events == [.value(1), .failure("boom")])
    }

    @Test("AnySubscriber forwards to the wrapped subscriber or to its closures")
    func anySubscriber() {
        let recorder = Recorder<Int, Never>()
        Just(1).subscribe(AnySubscriber(recorder))
        #expect(recorder.events == [.value(1), .finished])
        let values = Box<[Int]>([])
        Just(2).subscribe(AnySubscriber<Int, Never>(receiveValue: { value in values.mutate { $0.append(value) } }))
        #expect(values.value == [2])
    }
}

/// A publisher with its own `sink`, which counts how often it was used.
private struct CountingSinkPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let sinks: Box<Int>

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        Just(1).subscribe(subscriber)
    }

    func sink(
        receiveCompletion: @escaping @Sendable (Completion<Never>) -> Void,
        receiveValue: @escaping @Sendable (Int) -> Void
    ) -> Subscription {
        sinks.value += 1
        receiveValue(1)
        return Subscription()
    }
}

@Suite struct CustomSinkTests {
    @Test("AnyPublisher's sink is the wrapped publisher's own sink; other subscribers still go through receive")
    func anyPublisherUsesTheWrappedSink() {
        let sinks = Box(0)
        let erased = CountingSinkPublisher(sinks: sinks).eraseToAnyPublisher()
        let values = Box<[Int]>([])
        _ = erased.sink { value in values.mutate { $0.append(value) } }
        #expect(sinks.value == 1)
        let recorder = erased.record()
        #expect(sinks.value == 1)
        #expect(recorder.events == [.value(1), .finished])
        #expect(values.value == [1])
    }
}
