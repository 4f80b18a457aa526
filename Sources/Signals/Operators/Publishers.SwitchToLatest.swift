extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Follows only the most recent inner publisher: a new one cancels the previous.
    ///
    /// Finishes when this publisher and the current inner publisher have finished; fails when either fails.
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publishers {
    /// The publisher `switchToLatest()` returns.
    public struct SwitchToLatest<Inner: Publisher, Upstream: Publisher>: Publisher
    where Upstream.Output == Inner, Inner.Failure == Upstream.Failure {
        public typealias Output = Inner.Output
        public typealias Failure = Inner.Failure

        public let upstream: Upstream

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let core = Core(downstream: subscriber)
            core.start()
            upstream.receive(subscriber: UpstreamSide(core: core))
        }

        private struct State: Sendable {
            var generation = 0
            var isInnerActive = false
            var isUpstreamFinished = false
        }

        private final class Core: Sendable {
            static var upstreamID: Int { -1 }
            let downstream: SerialDownstream<Output, Failure>
            let upstreams = UpstreamBag()
            let state = Locked(State())

            init(downstream: some Subscriber<Output, Failure>) {
                self.downstream = SerialDownstream(downstream)
            }

            func start() {
                downstream.start(
                    Subscription(
                        cancelsOnRelease: false,
                        onCancel: { [upstreams, downstream] in
                            downstream.cancel()
                            upstreams.cancelAll()
                        }))
            }

            func switchTo(_ inner: Inner) {
                guard !downstream.isClosed else { return }
                let generation = state.withLock { state in
                    state.generation += 1
                    state.isInnerActive = true
                    return state.generation
                }
                upstreams.cancel(id: generation - 1)
                inner.receive(subscriber: InnerSide(core: self, generation: generation))
            }

            func receive(_ value: Output, generation: Int) {
                let mustDrain = state.withLock { state -> Bool in
                    guard state.generation == generation else { return false }
                    return downstream.enqueue(.value(value))
                }
                if mustDrain { downstream.drain() }
            }

            func complete(_ completion: Completion<Failure>, generation: Int?) {
                guard case .finished = completion else {
                    let isCurrent = state.withLock { generation == nil || $0.generation == generation }
                    guard isCurrent else { return }
                    upstreams.cancelAll()
                    downstream.finish(completion)
                    return
                }
                let isOver = state.withLock { state -> Bool in
                    if let generation {
                        guard state.generation == generation else { return false }
                        state.isInnerActive = false
                    } else {
                        state.isUpstreamFinished = true
                    }
                    return state.isUpstreamFinished && !state.isInnerActive
                }
                upstreams.remove(id: generation ?? Self.upstreamID)
                if isOver { downstream.finish(.finished) }
            }
        }

        private struct UpstreamSide: Subscriber {
            let core: Core
            func receive(subscription: Subscription) { core.upstreams.add(subscription, id: Core.upstreamID) }
            func receive(_ input: Inner) { core.switchTo(input) }
            func receive(completion: Completion<Failure>) { core.complete(completion, generation: nil) }
        }

        private struct InnerSide: Subscriber {
            let core: Core
            let generation: Int
            func receive(subscription: Subscription) { core.upstreams.add(subscription, id: generation) }
            func receive(_ input: Output) { core.receive(input, generation: generation) }
            func receive(completion: Completion<Failure>) { core.complete(completion, generation: generation) }
        }
    }
}
