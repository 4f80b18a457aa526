extension Publisher {
    /// Emits the first value, finishes, and cancels the upstream.
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self) { _ in true }
    }

    /// Emits the first value that satisfies `predicate`, finishes, and cancels the upstream.
    public func first(where predicate: @escaping @Sendable (Output) -> Bool) -> Publishers.First<Self> {
        Publishers.First(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// The publisher `first()` and `first(where:)` return. Finishes without a value if the upstream finishes
    /// first.
    public struct First<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The test applied to each value.
        public let predicate: @Sendable (Output) -> Bool

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, predicate: predicate))
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let predicate: @Sendable (Output) -> Bool
            let link = UpstreamLink()

            init(downstream: Downstream, predicate: @escaping @Sendable (Output) -> Bool) {
                self.downstream = downstream
                self.predicate = predicate
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                downstream.receive(subscription: link.downstreamToken())
            }

            func receive(_ input: Output) {
                guard link.isActive, predicate(input), link.end(cancellingUpstream: true) else { return }
                downstream.receive(input)
                downstream.receive(completion: .finished)
            }

            func receive(completion: Completion<Failure>) {
                if link.end(cancellingUpstream: false) { downstream.receive(completion: completion) }
            }
        }
    }
}
