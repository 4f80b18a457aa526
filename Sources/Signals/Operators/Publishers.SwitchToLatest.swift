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
        /// The values this publisher delivers.
        public typealias Output = Inner.Output
        /// The error this publisher can fail with.
        public typealias Failure = Inner.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let core = Core(downstream: subscriber)
            core.junction.start()
            upstream.receive(subscriber: UpstreamSide(core: core))
        }

        private struct State: Sendable {
            var generation = 0
            var isInnerActive = false
            var isUpstreamFinished = false
        }

        private final class Core: Sendable {
            static var upstreamID: Int { -1 }
            let junction: Junction<Output, Failure>
            let state = Locked(State())

            init(downstream: some Subscriber<Output, Failure>) {
                self.junction = Junction(downstream)
            }

            func switchTo(_ inner: Inner) {
                guard !junction.downstream.isClosed else { return }
                let generation = state.withLock { state in
                    state.generation += 1
                    state.isInnerActive = true
                    return state.generation
                }
                junction.upstreams.cancel(id: generation - 1)
                inner.receive(subscriber: InnerSide(core: self, generation: generation))
            }

            func receive(_ value: Output, generation: Int) {
                let mustDrain = state.withLock { state -> Bool in
                    guard state.generation == generation else { return false }
                    return junction.downstream.enqueue(.value(value))
                }
                if mustDrain { junction.downstream.drain() }
            }

            func complete(_ completion: Completion<Failure>, generation: Int?) {
                guard case .finished = completion else {
                    let isCurrent = state.withLock { generation == nil || $0.generation == generation }
                    guard isCurrent else { return }
                    junction.end(with: completion)
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
                junction.upstreams.remove(id: generation ?? Self.upstreamID)
                if isOver { junction.downstream.finish(.finished) }
            }
        }

        private struct UpstreamSide: Subscriber {
            let core: Core
            func receive(subscription: Subscription) { core.junction.upstreams.add(subscription, id: Core.upstreamID) }
            func receive(_ input: Inner) { core.switchTo(input) }
            func receive(completion: Completion<Failure>) { core.complete(completion, generation: nil) }
        }

        private struct InnerSide: Subscriber {
            let core: Core
            let generation: Int
            func receive(subscription: Subscription) { core.junction.upstreams.add(subscription, id: generation) }
            func receive(_ input: Output) { core.receive(input, generation: generation) }
            func receive(completion: Completion<Failure>) { core.complete(completion, generation: generation) }
        }
    }
}
