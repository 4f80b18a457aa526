import Dispatch
import Signals
import TestSupport
import Testing

@Suite struct PassthroughSubjectTests {
    @Test("delivery is synchronous on the sending thread, to subscribers in subscription order")
    func synchronousInOrder() {
        let subject = PassthroughSubject<Int, Never>()
        let log = Box<[String]>([])
        let first = subject.sink { value in log.mutate { $0.append("a\(value)") } }
        let second = subject.sink { value in log.mutate { $0.append("b\(value)") } }
        subject.send(1)
        #expect(log.value == ["a1", "b1"])
        subject.send(2)
        #expect(log.value == ["a1", "b1", "a2", "b2"])
        _ = (first, second)
    }

    @Test("a subscriber cancelled during a delivery gets nothing after the cancel returns")
    func cancelDuringDelivery() {
        let subject = PassthroughSubject<Int, Never>()
        let victim = Box<Subscription?>(nil)
        let killer = subject.record { _, _ in victim.value?.cancel() }
        let received = Box<[Int]>([])
        victim.value = subject.sink { value in received.mutate { $0.append(value) } }
        subject.send(1)
        subject.send(2)
        #expect(received.value.isEmpty)
        #expect(killer.values == [1, 2])
        #expect(subject.subscriberCount == 1)
    }

    @Test("a subscriber that cancels itself mid-delivery gets no later value of the same loop")
    func selfCancel() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = subject.record { value, recorder in
            if value == 1 { subject.send(2) }
            recorder.cancel()
        }
        subject.send(1)
        subject.send(3)
        #expect(recorder.values == [1])
    }

    @Test("a send from inside a callback is delivered after the current value, to everyone, without deadlock")
    func reentrantSend() {
        let subject = PassthroughSubject<Int, Never>()
        let log = Box<[String]>([])
        let first = subject.sink { value in
            log.mutate { $0.append("a\(value)") }
            if value == 1 { subject.send(2) }
        }
        let second = subject.sink { value in log.mutate { $0.append("b\(value)") } }
        subject.send(1)
        #expect(log.value == ["a1", "b1", "a2", "b2"])
        _ = (first, second)
    }

    @Test("a subscriber added during a delivery gets only later values")
    func subscribeDuringDelivery() {
        let subject = PassthroughSubject<Int, Never>()
        let late = Box<Recorder<Int, Never>?>(nil)
        let first = subject.sink { value in
            if value == 1 { late.value = subject.record() }
        }
        subject.send(1)
        subject.send(2)
        #expect(late.value?.values == [2])
        _ = first
    }

    @Test("after completion nothing is delivered; a late subscriber gets the completion at once")
    func completion() {
        let subject = PassthroughSubject<Int, TestError>()
        let early = subject.record()
        subject.send(1)
        subject.send(completion: .failure(.boom))
        subject.send(2)
        subject.send(completion: .finished)
        #expect(early.events == [.value(1), .failure("boom")])
        let late = subject.record()
        #expect(late.events == [.failure("boom")])
        #expect(late.subscriptionCount == 1)
        #expect(subject.subscriberCount == 0)
    }

    @Test("a cancelled subscriber is released")
    func cancelledSubscriberReleased() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakToken: Token?
        var subscription: Subscription?
        do {
            let token = Token()
            weakToken = token
            subscription = subject.sink { _ in _ = token }
        }
        #expect(weakToken != nil)
        subscription?.cancel()
        #expect(weakToken == nil)
        #expect(subject.subscriberCount == 0)
        subscription = nil
    }

    @Test("releasing the subscription token cancels it")
    func releaseCancels() {
        let subject = PassthroughSubject<Int, Never>()
        let received = Box<[Int]>([])
        var subscription: Subscription? = subject.sink { value in received.mutate { $0.append(value) } }
        subject.send(1)
        subscription = nil
        subject.send(2)
        #expect(received.value == [1])
        #expect(subscription == nil)
    }

    @Test("a subject nobody references is freed; its subscribers go when their tokens go")
    func subjectFreed() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        weak var weakToken: Token?
        var subscriptions = Set<Subscription>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            let token = Token()
            weakToken = token
            subject.sink { _ in _ = token }.store(in: &subscriptions)
            subject.map { $0 + 1 }.filter { $0 > 0 }.sink { _ in _ = token }.store(in: &subscriptions)
        }
        #expect(weakSubject == nil)
        #expect(weakToken != nil)
        subscriptions.removeAll()
        #expect(weakToken == nil)
    }

    @Test(
        "many threads sending, subscribing and cancelling: each subscriber gets exactly what was sent while it was subscribed"
    )
    func stress() {
        let subject = PassthroughSubject<Int, Never>()
        let senders = 4
        let perSender = 2_000
        let steady = (0..<3).map { _ in subject.record() }
        let violations = Box<[String]>([])
        concurrently(senders + 2) { worker in
            if worker < senders {
                for index in 0..<perSender { subject.send(worker * perSender + index) }
            } else {
                for _ in 0..<500 {
                    let recorder = subject.record()
                    recorder.cancel()
                    // Deliveries are serialised in send order, so what a subscriber saw of each sender is one
                    // unbroken run of that sender's values: no gap, no duplicate, no reordering.
                    for sender in 0..<senders {
                        let mine = recorder.values.filter { $0 / perSender == sender }
                        guard let first = mine.first else { continue }
                        if mine != Array(first..<(first + mine.count)) {
                            violations.mutate { $0.append("sender \(sender): \(mine)") }
                        }
                    }
                }
            }
        }
        for recorder in steady {
            #expect(recorder.values.count == senders * perSender)
            for sender in 0..<senders {
                let mine = recorder.values.filter { $0 / perSender == sender }
                #expect(mine == Array((sender * perSender)..<((sender + 1) * perSender)))
            }
        }
        #expect(violations.value.isEmpty)
        #expect(subject.subscriberCount == steady.count)
    }
}
