extension Publisher {
    /// Emits `(a, b)` with the latest value of each side, once both have sent one and whenever either sends.
    ///
    /// Finishes when both have finished (or when one finishes before ever sending a value); fails as soon as
    /// one side fails.
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
    where P.Failure == Failure {
        Publishers.CombineLatest(a: self, b: other)
    }
}

extension Publishers {
    /// The publisher `combineLatest(_:)` returns.
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
        /// The values this publisher delivers.
        public typealias Output = (A.Output, B.Output)
        /// The error this publisher can fail with.
        public typealias Failure = A.Failure

        /// The first source.
        public let a: A
        /// The second source.
        public let b: B

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let core = Core(downstream: subscriber)
            core.junction.start()
            a.receive(subscriber: SideA(core: core))
            b.receive(subscriber: SideB(core: core))
        }

        private struct State: Sendable {
            var a: A.Output?
            var b: B.Output?
            var finished = [false, false]
        }

        private final class Core: Sendable {
            let junction: Junction<Output, Failure>
            let state = Locked(State())

            init(downstream: some Subscriber<Output, Failure>) {
                self.junction = Junction(downstream)
            }

            func update(_ change: (inout State) -> Void) {
                // The event is enqueued in the same critical section that computed it, so concurrent sides
                // cannot deliver an older pair after a newer one.
                let mustDrain = state.withLock { state -> Bool in
                    change(&state)
                    guard let a = state.a, let b = state.b else { return false }
                    return junction.downstream.enqueue(.value((a, b)))
                }
                if mustDrain { junction.downstream.drain() }
            }

            func complete(_ completion: Completion<Failure>, side: Int) {
                guard case .finished = completion else {
                    junction.end(with: completion)
                    return
                }
                junction.upstreams.remove(id: side)
                let isOver = state.withLock { state -> Bool in
                    state.finished[side] = true
                    let neverSent = side == 0 ? state.a == nil : state.b == nil
                    return neverSent || (state.finished[0] && state.finished[1])
                }
                if isOver {
                    junction.end(with: .finished)
                }
            }
        }

        private struct SideA: Subscriber {
            let core: Core
            func receive(subscription: Subscription) { core.junction.upstreams.add(subscription, id: 0) }
            func receive(_ input: A.Output) { core.update { $0.a = input } }
            func receive(completion: Completion<Failure>) { core.complete(completion, side: 0) }
        }

        private struct SideB: Subscriber {
            let core: Core
            func receive(subscription: Subscription) { core.junction.upstreams.add(subscription, id: 1) }
            func receive(_ input: B.Output) { core.update { $0.b = input } }
            func receive(completion: Completion<Failure>) { core.complete(completion, side: 1) }
        }
    }
}
