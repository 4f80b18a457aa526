extension Publisher {
    /// Transforms each value and passes on the non-nil results.
    public func compactMap<T: Sendable>(
        _ transform: @escaping @Sendable (Output) -> T?
    ) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// The publisher `compactMap(_:)` returns.
    public struct CompactMap<Upstream: Publisher, Output: Sendable>: Publisher {
        public typealias Failure = Upstream.Failure

        public let upstream: Upstream
        public let transform: @Sendable (Upstream.Output) -> Output?

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }

        private struct Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let transform: @Sendable (Upstream.Output) -> Output?

            func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            func receive(_ input: Upstream.Output) { if let output = transform(input) { downstream.receive(output) } }
            func receive(completion: Completion<Failure>) { downstream.receive(completion: completion) }
        }
    }
}
