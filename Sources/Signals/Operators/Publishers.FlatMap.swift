extension Publisher {
    /// Maps each value to a publisher and merges the values of all of them, in arrival order.
    ///
    /// Finishes when this publisher and every inner publisher have finished; fails as soon as any fails.
    public func flatMap<P: Publisher>(
        _ transform: @escaping @Sendable (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where P.Failure == Failure {
        Publishers.FlatMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// The publisher `flatMap(_:)` returns.
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
    where NewPublisher.Failure == Upstream.Failure {
        /// The values this publisher delivers.
        public typealias Output = NewPublisher.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The closure applied to each value (or error).
        public let transform: @Sendable (Upstream.Output) -> NewPublisher

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let core = Core(downstream: subscriber, transform: transform)
            core.junction.start()
            upstream.receive(subscriber: UpstreamSide(core: core))
        }

        private struct State: Sendable {
            var nextID = 1
            var activeInners = 0
            var isUpstreamFinished = false
        }

        private final class Core: Sendable {
            let junction: Junction<Output, Failure>
            let state = Locked(State())
            let transform: @Sendable (Upstream.Output) -> NewPublisher

            init(
                downstream: some Subscriber<Output, Failure>,
                transform: @escaping @Sendable (Upstream.Output) -> NewPublisher
            ) {
                self.junction = Junction(downstream)
                self.transform = transform
            }

            func receive(_ value: Upstream.Output) {
                guard !junction.downstream.isClosed else { return }
                let id = state.withLock { state in
                    state.activeInners += 1
                    defer { state.nextID += 1 }
                    return state.nextID
                }
                transform(value).receive(subscriber: InnerSide(core: self, id: id))
            }

            func complete(_ completion: Completion<Failure>, id: Int) {
                guard case .finished = completion else {
                    junction.end(with: completion)
                    return
                }
                junction.upstreams.remove(id: id)
                let isOver = state.withLock { state -> Bool in
                    if id == 0 { state.isUpstreamFinished = true } else { state.activeInners -= 1 }
                    return state.isUpstreamFinished && state.activeInners == 0
                }
                if isOver { junction.downstream.finish(.finished) }
            }
        }

        private struct UpstreamSide: Subscriber {
            let core: Core
            func receive(subscription: Subscription) { core.junction.upstreams.add(subscription, id: 0) }
            func receive(_ input: Upstream.Output) { core.receive(input) }
            func receive(completion: Completion<Failure>) { core.complete(completion, id: 0) }
        }

        private struct InnerSide: Subscriber {
            let core: Core
            let id: Int
            func receive(subscription: Subscription) { core.junction.upstreams.add(subscription, id: id) }
            func receive(_ input: Output) { core.junction.downstream.send(input) }
            func receive(completion: Completion<Failure>) { core.complete(completion, id: id) }
        }
    }
}
