import Signals
import Testing

@Suite struct ValuesTests {
    @Test("values yields each value in order and ends when the publisher finishes")
    func values() async {
        var received: [Int] = []
        for await value in [1, 2, 3].publisher.values { received.append(value) }
        #expect(received == [1, 2, 3])
    }

    @Test("values of a failing publisher throws the failure")
    func throwing() async {
        let publisher = [1].publisher.setFailureType(to: TestError.self).append().tryMap { _ -> Int in
            throw TestError.boom
        }
        await #expect(throws: TestError.boom) {
            for try await _ in publisher.values {}
        }
    }

    @Test("values buffers what is sent before the loop asks")
    func buffers() async {
        let subject = PassthroughSubject<Int, Never>()
        let values = subject.values
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        var received: [Int] = []
        for await value in values { received.append(value) }
        #expect(received == [1, 2])
    }

    @Test("cancelling the iterating task cancels the subscription")
    func taskCancel() async {
        let subject = PassthroughSubject<Int, Never>()
        let (firstValue, firstValueContinuation) = AsyncStream<Void>.makeStream()
        let values = subject.values
        #expect(subject.subscriberCount == 1)
        let task = Task {
            for await _ in values { firstValueContinuation.yield() }
        }
        subject.send(1)
        for await _ in firstValue { break }
        task.cancel()
        await task.value
        #expect(subject.subscriberCount == 0)
    }

    @Test("dropping the sequence without iterating cancels the subscription")
    func dropCancels() {
        let subject = PassthroughSubject<Int, Never>()
        do {
            let values = subject.values
            _ = values
            #expect(subject.subscriberCount == 1)
        }
        #expect(subject.subscriberCount == 0)
    }
}
