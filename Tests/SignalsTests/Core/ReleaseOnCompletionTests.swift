import Signals
import Synchronization
import Testing

/// A completed subscription lets go of its subscriber, the closures it captured and its upstream, although its
/// token is still held: an object that keeps its tokens and captures itself in the closures is freed once the
/// publisher has finished or failed (Combine's rule).
@Suite struct ReleaseOnCompletionTests {
    /// What the closures capture: the test checks that nothing keeps it after the completion.
    final class Owner: Sendable {
        /// Called when the owner is freed, for a release that happens on another task.
        private let freed: (@Sendable () -> Void)?

        init(freed: (@Sendable () -> Void)? = nil) {
            self.freed = freed
        }

        deinit { freed?() }

        func touch() {}
    }

    /// A subscription held in a bag, the owner it captured seen weakly, and whether it completed.
    struct Held {
        weak var owner: Owner?
        let bag: [Subscription]
        let completed: Locked<Bool>

        var isCompleted: Bool { completed.withLock { $0 } }
    }

    /// Subscribes with `sink` to what `make` builds around a new owner, keeping the token as a user would.
    static func subscribe<P: Publisher>(freed: (@Sendable () -> Void)? = nil, _ make: (Owner) -> P) -> Held {
        let completed = Locked(false)
        let owner = Owner(freed: freed)
        let token = make(owner).sink(
            receiveCompletion: { _ in
                owner.touch()
                completed.withLock { $0 = true }
            },
            receiveValue: { _ in owner.touch() })
        return Held(owner: owner, bag: [token], completed: completed)
    }

    // MARK: - Sources

    struct SourceCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// Subscribes and brings the source to its completion.
        let run: @Sendable () -> Held
        var testDescription: String { name }
    }

    static let sources: [SourceCase] = [
        SourceCase(name: "Just") { subscribe { _ in Just(1) } },
        SourceCase(name: "a sequence") { subscribe { _ in [1, 2, 3].publisher } },
        SourceCase(name: "Empty") { subscribe { _ in Empty<Int, Never>() } },
        SourceCase(name: "Fail") { subscribe { _ in Fail<Int, TestError>(error: .boom) } },
        SourceCase(name: "Deferred") {
            subscribe { owner in
                Deferred { [owner] in
                    owner.touch(); return Just(1)
                }
            }
        },
        SourceCase(name: "a Future fulfilled before") {
            subscribe { _ in Future<Int, TestError> { promise in promise(.success(1)) } }
        },
        SourceCase(name: "a Future fulfilled after") {
            let promise = Locked<Future<Int, TestError>.Promise?>(nil)
            let held = subscribe { _ in Future<Int, TestError> { fulfil in promise.withLock { $0 = fulfil } } }
            promise.withLock { $0 }?(.success(1))
            return held
        },
        SourceCase(name: "a Future that fails") {
            let promise = Locked<Future<Int, TestError>.Promise?>(nil)
            let held = subscribe { _ in Future<Int, TestError> { fulfil in promise.withLock { $0 = fulfil } } }
            promise.withLock { $0 }?(.failure(.boom))
            return held
        },
        SourceCase(name: "a PassthroughSubject that finishes") {
            let subject = PassthroughSubject<Int, TestError>()
            let held = subscribe { _ in subject }
            subject.send(1)
            subject.send(completion: .finished)
            return held
        },
        SourceCase(name: "a PassthroughSubject that fails") {
            let subject = PassthroughSubject<Int, TestError>()
            let held = subscribe { _ in subject }
            subject.send(completion: .failure(.boom))
            return held
        },
        SourceCase(name: "a completed PassthroughSubject") {
            let subject = PassthroughSubject<Int, TestError>()
            subject.send(completion: .finished)
            return subscribe { _ in subject }
        },
        SourceCase(name: "a CurrentValueSubject that finishes") {
            let subject = CurrentValueSubject<Int, TestError>(0)
            let held = subscribe { _ in subject }
            subject.send(completion: .finished)
            return held
        },
        SourceCase(name: "a completed CurrentValueSubject") {
            let subject = CurrentValueSubject<Int, TestError>(0)
            subject.send(completion: .failure(.boom))
            return subscribe { _ in subject }
        },
    ]

    @Test("a completed source lets go of the subscriber and its closures", arguments: sources)
    func sourceReleases(_ source: SourceCase) {
        let held = source.run()
        #expect(held.isCompleted)
        #expect(held.owner == nil)
        #expect(held.bag.count == 1)
    }

    @Test("a completed AsyncFuture lets go of the subscriber and its closures", .timeLimit(.minutes(1)))
    func asyncFutureReleases() async {
        // The task delivers the completion and then ends; the owner is freed once it has returned (a leak never
        // frees it, and the time limit fails the test).
        let (freed, signal) = AsyncStream<Void>.makeStream()
        let held = Self.subscribe(freed: { signal.yield() }) { owner in
            AsyncFuture<Int, Never> { [owner] in
                owner.touch(); return 1
            }
        }
        for await _ in freed { break }
        #expect(held.owner == nil)
        #expect(held.isCompleted)
    }

    // MARK: - Operators

    struct OperatorCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// Wraps the subject with the operator, whose closures (where it has some) capture the owner.
        let apply: @Sendable (PassthroughSubject<Int, TestError>, TestScheduler, Owner) -> AnyPublisher<Int, TestError>
        var testDescription: String { name }
    }

    static let operators: [OperatorCase] = [
        OperatorCase(name: "map") { s, _, o in
            s.map { [o] in
                o.touch(); return $0
            }.eraseToAnyPublisher()
        },
        OperatorCase(name: "tryMap") { s, _, o in
            s.tryMap { [o] in
                o.touch(); return $0
            }.mapError { [o] _ in
                o.touch(); return TestError.other
            }
            .eraseToAnyPublisher()
        },
        OperatorCase(name: "compactMap") { s, _, o in
            s.compactMap { [o] in
                o.touch(); return $0
            }.eraseToAnyPublisher()
        },
        OperatorCase(name: "filter") { s, _, o in
            s.filter { [o] _ in
                o.touch(); return true
            }.eraseToAnyPublisher()
        },
        OperatorCase(name: "removeDuplicates") { s, _, o in
            s.removeDuplicates { [o] in
                o.touch(); return $0 == $1
            }.eraseToAnyPublisher()
        },
        OperatorCase(name: "scan") { s, _, o in
            s.scan(0) { [o] in
                o.touch(); return $1
            }.eraseToAnyPublisher()
        },
        OperatorCase(name: "first(where:)") { s, _, o in
            s.first { [o] _ in
                o.touch(); return false
            }.eraseToAnyPublisher()
        },
        OperatorCase(name: "collect") { s, _, _ in s.collect().map { $0.count }.eraseToAnyPublisher() },
        OperatorCase(name: "setFailureType") { _, _, _ in
            Empty<Int, Never>().setFailureType(to: TestError.self).eraseToAnyPublisher()
        },
        OperatorCase(name: "replaceError") { s, _, _ in
            s.replaceError(with: 0).setFailureType(to: TestError.self).eraseToAnyPublisher()
        },
        OperatorCase(name: "prepend") { s, _, _ in s.prepend(0).eraseToAnyPublisher() },
        OperatorCase(name: "append") { s, _, _ in s.append(0).eraseToAnyPublisher() },
        OperatorCase(name: "merge") { s, _, _ in s.merge(with: Empty()).eraseToAnyPublisher() },
        OperatorCase(name: "combineLatest") { s, _, _ in
            s.combineLatest(Just(0).setFailureType(to: TestError.self)).map(\.0).eraseToAnyPublisher()
        },
        OperatorCase(name: "flatMap") { s, _, o in
            s.flatMap { [o] value in
                o.touch(); return Just(value).setFailureType(to: TestError.self)
            }
            .eraseToAnyPublisher()
        },
        OperatorCase(name: "switchToLatest") { s, _, o in
            s.map { [o] value in
                o.touch(); return Just(value).setFailureType(to: TestError.self)
            }.switchToLatest()
                .eraseToAnyPublisher()
        },
        OperatorCase(name: "catch") { s, _, o in
            s.catch { [o] error in
                o.touch(); return Fail<Int, TestError>(error: error)
            }.eraseToAnyPublisher()
        },
        OperatorCase(name: "handleEvents") { s, _, o in
            s.handleEvents(
                receiveOutput: { [o] _ in o.touch() }, receiveCompletion: { [o] _ in o.touch() },
                receiveCancel: { [o] in o.touch() }
            ).eraseToAnyPublisher()
        },
        OperatorCase(name: "delay") { s, t, _ in s.delay(for: .seconds(1), scheduler: t).eraseToAnyPublisher() },
        OperatorCase(name: "receive(on:)") { s, t, _ in s.receive(on: t).eraseToAnyPublisher() },
        OperatorCase(name: "debounce") { s, t, _ in s.debounce(for: .seconds(1), scheduler: t).eraseToAnyPublisher() },
        OperatorCase(name: "throttle") { s, t, _ in
            s.throttle(for: .seconds(1), scheduler: t, latest: true).eraseToAnyPublisher()
        },
        OperatorCase(name: "eraseToAnyPublisher") { s, _, _ in s.eraseToAnyPublisher() },
    ]

    @Test(
        "a completed chain lets go of the subscriber, the operator's closures and its upstream",
        arguments: operators, [true, false])
    func operatorReleases(_ operatorCase: OperatorCase, finishes: Bool) {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let held = Self.subscribe { owner in operatorCase.apply(subject, scheduler, owner) }
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(completion: finishes ? .finished : .failure(.boom))
        scheduler.advance(by: .seconds(5))
        #expect(held.isCompleted)
        #expect(held.owner == nil)
        #expect(subject.subscriberCount == 0)
        #expect(scheduler.pendingCount == 0)
        #expect(held.bag.count == 1)
    }

    @Test("a cancelled chain lets go of everything too", arguments: operators)
    func cancelReleases(_ operatorCase: OperatorCase) {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let held = Self.subscribe { owner in operatorCase.apply(subject, scheduler, owner) }
        subject.send(1)
        held.bag.forEach { $0.cancel() }
        scheduler.advance(by: .seconds(5))
        #expect(held.owner == nil)
        #expect(subject.subscriberCount == 0)
    }
}

extension ReleaseOnCompletionTests {
    @Test("an operator that ends the stream itself lets go of its upstream, which goes on")
    func earlyEndReleases() {
        let subject = PassthroughSubject<Int, TestError>()
        let first = Self.subscribe { owner in
            subject.first { [owner] _ in
                owner.touch(); return true
            }
        }
        let prefix = Self.subscribe { owner in
            subject.map { [owner] in
                owner.touch(); return $0
            }.first()
        }
        #expect(subject.subscriberCount == 2)
        subject.send(1)
        #expect(first.isCompleted && prefix.isCompleted)
        #expect(first.owner == nil && prefix.owner == nil)
        #expect(subject.subscriberCount == 0)
        let later = Self.subscribe { _ in subject }
        subject.send(2)
        #expect(subject.subscriberCount == 1 && !later.isCompleted)
    }
}
