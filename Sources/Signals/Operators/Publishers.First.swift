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
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        public let upstream: Upstream
        public let predicate: @Sendable (Output) -> Bool

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
