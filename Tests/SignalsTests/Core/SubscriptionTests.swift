import Signals
import TestSupport
import Testing

@Suite struct SubscriptionTests {
    @Test("cancel runs the cancellation once, however often it is called")
    func idempotent() {
        let count = Box(0)
        let subscription = Subscription { count.mutate { $0 += 1 } }
        subscription.cancel()
        subscription.cancel()
        #expect(count.value == 1)
        #expect(subscription.isCancelled)
    }

    @Test("the token cancels when released")
    func cancelsOnDeinit() {
        let count = Box(0)
        var subscription: Subscription? = Subscription { count.mutate { $0 += 1 } }
        #expect(subscription?.isCancelled == false)
        subscription = nil
        #expect(count.value == 1)
    }

    @Test("store(in:) keeps the token; emptying the set cancels")
    func storeInSet() {
        let count = Box(0)
        var set = Set<Subscription>()
        Subscription { count.mutate { $0 += 1 } }.store(in: &set)
        #expect(count.value == 0)
        set.removeAll()
        #expect(count.value == 1)
    }

    @Test("cancel from many threads at once runs the cancellation exactly once")
    func concurrentCancel() {
        for _ in 0..<200 {
            let count = Box(0)
            let subscription = Subscription { count.mutate { $0 += 1 } }
            concurrently(4) { _ in subscription.cancel() }
            #expect(count.value == 1)
        }
    }

    @Test("the cancellation closure is released at cancel, not at deinit")
    func releasesClosure() {
        weak var weakToken: Token?
        let subscription: Subscription
        do {
            let token = Token()
            weakToken = token
            subscription = Subscription { _ = token }
        }
        #expect(weakToken != nil)
        subscription.cancel()
        #expect(weakToken == nil)
    }
}

@Suite struct SinkTests {
    @Test("sink receives values and the completion")
    func valuesAndCompletion() {
        let completion = Box<Completion<TestError>?>(nil)
        let values = Box<[Int]>([])
        let subject = PassthroughSubject<Int, TestError>()
        let subscription = subject.sink(
            receiveCompletion: { completion.value = $0 },
            receiveValue: { value in values.mutate { $0.append(value) } }
        )
        subject.send(1)
        subject.send(completion: .failure(.boom))
        #expect(values.value == [1])
        #expect(completion.value == .failure(.boom))
        _ = subscription
    }

    @Test("a sink on a finished chain is freed at once, although its token is still held")
    func releasedAfterCompletion() {
        weak var weakToken: Token?
        var subscription: Subscription?
        do {
            let token = Token()
            weakToken = token
            subscription = Just(1).sink { _ in _ = token }
        }
        #expect(weakToken == nil)
        #expect(subscription?.isCancelled == false)
    }

    @Test("a sink on an open chain is kept by its token and freed when the token is released")
    func keptWhileActive() {
        let subject = PassthroughSubject<Int, Never>()
        let received = Box<[Int]>([])
        weak var weakToken: Token?
        var subscription: Subscription?
        do {
            let token = Token()
            weakToken = token
            subscription = subject.sink { value in
                _ = token
                received.mutate { $0.append(value) }
            }
        }
        subject.send(1)
        #expect(weakToken != nil)
        #expect(received.value == [1])
        #expect(subscription?.isCancelled == false)
        subscription = nil
        #expect(weakToken == nil)
        #expect(subject.subscriberCount == 0)
    }
}

@Suite struct CancellableTests {
    @Test("asSubscription turns scheduled work into a token that cancels it when released")
    func asSubscription() {
        let scheduler = TestScheduler()
        let ran = Box(false)
        var token: Subscription? = scheduler.schedule(after: .seconds(1)) { ran.value = true }.asSubscription()
        #expect(token != nil)
        token = nil
        scheduler.advance(by: .seconds(1))
        #expect(ran.value == false)
        let subscription = Subscription {}
        #expect(subscription.asSubscription() === subscription)
    }
}

@Suite struct CompletionTests {
    @Test("error reads a failure's error; mapError transforms it; finished stays finished")
    func accessors() {
        let failure = Completion<TestError>.failure(.boom)
        #expect(failure.error == .boom)
        #expect(Completion<TestError>.finished.error == nil)
        #expect(failure.mapError { _ in TestError.other } == .failure(.other))
        #expect(Completion<TestError>.finished.mapError { _ in TestError.other } == .finished)
        #expect(failure.eraseError.error as? TestError == .boom)
    }
}
