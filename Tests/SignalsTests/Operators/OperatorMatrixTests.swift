import Signals
import TestSupport
import Testing

/// The rules every operator must keep, run over each one: a cancel during delivery stops it, a re-entrant
/// send neither deadlocks nor reorders, it is safe from many threads, and a cancelled chain is freed.
@Suite struct OperatorMatrixTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Wraps the subject with the operator; every case passes values 1... through unchanged in order.
        let apply: @Sendable (PassthroughSubject<Int, TestError>, TestScheduler) -> AnyPublisher<Int, TestError>
        /// Whether values only arrive once the scheduler is advanced.
        var needsScheduler = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "map") { s, _ in s.map { $0 }.eraseToAnyPublisher() },
        Case(name: "tryMap") { s, _ in s.tryMap { $0 }.mapError { $0 as? TestError ?? .other }.eraseToAnyPublisher() },
        Case(name: "compactMap") { s, _ in s.compactMap { $0 }.eraseToAnyPublisher() },
        Case(name: "filter") { s, _ in s.filter { _ in true }.eraseToAnyPublisher() },
        Case(name: "removeDuplicates") { s, _ in s.removeDuplicates().eraseToAnyPublisher() },
        Case(name: "scan") { s, _ in s.scan(0) { $1 }.eraseToAnyPublisher() },
        Case(name: "prepend") { s, _ in s.prepend().eraseToAnyPublisher() },
        Case(name: "merge") { s, _ in s.merge(with: Empty(completeImmediately: false)).eraseToAnyPublisher() },
        Case(name: "combineLatest") { s, _ in
            s.combineLatest(Just(0).setFailureType(to: TestError.self)).map(\.0).eraseToAnyPublisher()
        },
        Case(name: "flatMap") { s, _ in s.flatMap { Just($0).setFailureType(to: TestError.self) }.eraseToAnyPublisher()
        },
        Case(name: "switchToLatest") { s, _ in
            s.map { Just($0).setFailureType(to: TestError.self) }.switchToLatest().eraseToAnyPublisher()
        },
        Case(name: "catch") { s, _ in s.catch { Fail(error: $0) }.eraseToAnyPublisher() },
        Case(name: "handleEvents") { s, _ in s.handleEvents(receiveOutput: { _ in }).eraseToAnyPublisher() },
        Case(
            name: "delay", apply: { s, t in s.delay(for: .seconds(1), scheduler: t).eraseToAnyPublisher() },
            needsScheduler: true),
        Case(name: "receive(on:)", apply: { s, t in s.receive(on: t).eraseToAnyPublisher() }, needsScheduler: true),
        Case(name: "debounce(immediate)") { s, _ in
            s.debounce(for: .zero, scheduler: ImmediateScheduler.shared).eraseToAnyPublisher()
        },
        Case(name: "throttle(immediate)") { s, _ in
            s.throttle(for: .zero, scheduler: ImmediateScheduler.shared, latest: true).eraseToAnyPublisher()
        },
    ]

    @Test("values pass in order and a cancel during delivery stops the stream", arguments: cases)
    func cancelDuringDelivery(_ operatorCase: Case) {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = operatorCase.apply(subject, scheduler).record { value, recorder in
            if value == 2 { recorder.cancel() }
        }
        for value in 1...4 {
            subject.send(value)
            scheduler.advance(by: .seconds(1))
        }
        #expect(recorder.values == [1, 2])
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a failure of the upstream passes through after the values", arguments: cases)
    func failurePassesThrough(_ operatorCase: Case) {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = operatorCase.apply(subject, scheduler).record()
        subject.send(1)
        subject.send(completion: .failure(.boom))
        subject.send(2)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.events == [.value(1), .failure("boom")])
        #expect(scheduler.pendingCount == 0)
    }

    @Test(
        "a finish of the upstream passes through after the values",
        arguments: cases.filter { $0.name != "merge" })
    func finishPassesThrough(_ operatorCase: Case) {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = operatorCase.apply(subject, scheduler).record()
        subject.send(1)
        subject.send(completion: .finished)
        subject.send(2)
        scheduler.advance(by: .seconds(5))
        #expect(recorder.events == [.value(1), .finished])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a send from inside the callback neither deadlocks nor reorders", arguments: cases)
    func reentrancy(_ operatorCase: Case) {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = operatorCase.apply(subject, scheduler).record { value, _ in
            if value < 5 { subject.send(value + 1) }
        }
        subject.send(1)
        scheduler.advance(by: .seconds(10))
        #expect(recorder.values == [1, 2, 3, 4, 5])
    }

    @Test("a cancelled chain and its subject are freed", arguments: cases)
    func leak(_ operatorCase: Case) {
        weak var weakSubject: PassthroughSubject<Int, TestError>?
        weak var weakToken: Token?
        let scheduler = TestScheduler()
        do {
            let subject = PassthroughSubject<Int, TestError>()
            weakSubject = subject
            let token = Token()
            weakToken = token
            let subscription = operatorCase.apply(subject, scheduler).sink(
                receiveCompletion: { _ in _ = token },
                receiveValue: { _ in _ = token }
            )
            subject.send(1)
            scheduler.advance(by: .seconds(1))
            subscription.cancel()
        }
        scheduler.run()
        #expect(weakSubject == nil)
        #expect(weakToken == nil)
    }

    @Test("sends from many threads: every value arrives exactly once", arguments: cases.filter { !$0.needsScheduler })
    func stress(_ operatorCase: Case) {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = operatorCase.apply(subject, TestScheduler()).record()
        concurrently(4) { worker in
            for index in 0..<500 { subject.send(worker * 1_000 + index + 1) }
        }
        let values = recorder.values
        if operatorCase.name == "removeDuplicates" {
            #expect(Set(values).count == 2_000)
        } else {
            #expect(values.count == 2_000)
            #expect(Set(values).count == 2_000)
        }
    }
}
