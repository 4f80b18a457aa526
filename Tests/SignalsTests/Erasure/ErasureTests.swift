import Signals
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
