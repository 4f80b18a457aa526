extension Publisher {
    /// Collects every value and emits them as one array when the upstream finishes.
    ///
    /// A failure is passed on and the collected values are dropped.
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}

extension Publishers {
    /// The publisher `collect()` returns.
    public struct Collect<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = [Upstream.Output]
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let collected = Locked<[Upstream.Output]>([])

            init(downstream: Downstream) {
                self.downstream = downstream
            }

            func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }

            func receive(_ input: Upstream.Output) { collected.withLock { $0.append(input) } }

            func receive(completion: Completion<Failure>) {
                let values = collected.withLock { values in
                    defer { values = [] }
                    return values
                }
                if case .finished = completion { downstream.receive(values) }
                downstream.receive(completion: completion)
            }
        }
    }
}
