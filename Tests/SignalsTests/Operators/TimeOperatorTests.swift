import Dispatch
import Signals
import TestSupport
import Testing

@Suite struct TimeOperatorTests {
    @Test("debounce emits the last value of a burst once the quiet time has passed")
    func debounce() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.debounce(for: .milliseconds(300), scheduler: scheduler).record()
        subject.send(1)
        scheduler.advance(by: .milliseconds(200))
        subject.send(2)
        scheduler.advance(by: .milliseconds(299))
        #expect(recorder.values == [])
        scheduler.advance(by: .milliseconds(1))
        #expect(recorder.values == [2])
        subject.send(3)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.values == [2, 3])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("debounce flushes a waiting value when the upstream finishes, and drops it on failure")
    func debounceCompletion() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = subject.debounce(for: .seconds(1), scheduler: scheduler).record()
        subject.send(1)
        subject.send(completion: .finished)
        #expect(recorder.events == [.value(1), .finished])
        #expect(scheduler.pendingCount == 0)

        let failing = PassthroughSubject<Int, TestError>()
        let failed = failing.debounce(for: .seconds(1), scheduler: scheduler).record()
        failing.send(1)
        failing.send(completion: .failure(.boom))
        scheduler.advance(by: .seconds(2))
        #expect(failed.events == [.failure("boom")])
    }

    @Test("debounce: a cancel drops the waiting value and its timer")
    func debounceCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.debounce(for: .seconds(1), scheduler: scheduler).record()
        subject.send(1)
        recorder.cancel()
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(2))
        #expect(recorder.events == [])
        #expect(subject.subscriberCount == 0)
    }

    @Test("throttle(latest: true) emits the first value at once, then the latest per interval")
    func throttleLatest() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true).record()
        subject.send(1)
        #expect(recorder.values == [1])
        subject.send(2)
        subject.send(3)
        scheduler.advance(by: .milliseconds(999))
        #expect(recorder.values == [1])
        scheduler.advance(by: .milliseconds(1))
        #expect(recorder.values == [1, 3])
        scheduler.advance(by: .seconds(1))
        subject.send(4)
        #expect(recorder.values == [1, 3, 4])
        scheduler.advance(by: .seconds(5))
        #expect(scheduler.pendingCount == 0)
    }

    @Test("throttle(latest: false) keeps the first value of a window")
    func throttleFirst() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: false).record()
        subject.send(1)
        subject.send(2)
        subject.send(3)
        scheduler.advance(by: .seconds(1))
        #expect(recorder.values == [1, 2])
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingCount == 0)
    }

    @Test("throttle flushes a held value on finish, and a cancel stops its timer")
    func throttleCompletionAndCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true).record()
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        #expect(recorder.events == [.value(1), .value(2), .finished])
        #expect(scheduler.pendingCount == 0)

        let other = PassthroughSubject<Int, Never>()
        let cancelled = other.throttle(for: .seconds(1), scheduler: scheduler, latest: true).record()
        other.send(1)
        other.send(2)
        cancelled.cancel()
        scheduler.advance(by: .seconds(2))
        #expect(cancelled.values == [1])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("delay delivers every event, completion included, later and in order")
    func delay() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = subject.delay(for: .seconds(2), scheduler: scheduler).record()
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(2)
        subject.send(completion: .failure(.boom))
        #expect(recorder.events == [])
        scheduler.advance(by: .seconds(1))
        #expect(recorder.events == [.value(1)])
        scheduler.advance(by: .seconds(1))
        #expect(recorder.events == [.value(1), .value(2), .failure("boom")])
    }

    @Test("delay: a cancel drops everything still waiting")
    func delayCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.delay(for: .seconds(1), scheduler: scheduler).record()
        subject.send(1)
        recorder.cancel()
        #expect(scheduler.pendingCount == 0)
        scheduler.advance(by: .seconds(2))
        #expect(recorder.events == [])
    }

    @Test("receive(on:) delivers on the scheduler, in order; a cancel drops what was queued")
    func receiveOn() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.receive(on: scheduler).record()
        subject.send(1)
        subject.send(2)
        #expect(recorder.values == [])
        scheduler.advance()
        #expect(recorder.values == [1, 2])
        subject.send(3)
        subject.send(completion: .finished)
        scheduler.advance()
        #expect(recorder.events == [.value(1), .value(2), .value(3), .finished])

        let other = PassthroughSubject<Int, Never>()
        let cancelled = other.receive(on: scheduler).record()
        other.send(1)
        cancelled.cancel()
        scheduler.advance()
        #expect(cancelled.events == [])
    }

    @Test("receive(on:) a dispatch queue delivers on that queue, in order")
    func receiveOnQueue() async {
        let queue = DispatchQueue(label: "receive-on")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let onQueue = Box<[Bool]>([])
        let subscription = Box<Subscription?>(nil)
        let values = await withCheckedContinuation { continuation in
            let collected = Box<[Int]>([])
            subscription.value = (0..<100).publisher.receive(on: queue).sink(
                receiveCompletion: { _ in continuation.resume(returning: collected.value) },
                receiveValue: { value in
                    onQueue.mutate { $0.append(DispatchQueue.getSpecific(key: key) == true) }
                    collected.mutate { $0.append(value) }
                }
            )
        }
        #expect(values == Array(0..<100))
        #expect(onQueue.value.allSatisfy { $0 })
        #expect(subscription.value != nil)
    }
}
