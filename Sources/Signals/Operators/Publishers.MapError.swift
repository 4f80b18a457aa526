extension Publisher {
    /// Transforms the failure with `transform`.
    public func mapError<E: Error>(_ transform: @escaping @Sendable (Failure) -> E) -> Publishers.MapError<Self, E> {
        Publishers.MapError(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// The publisher `mapError(_:)` returns.
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        public typealias Output = Upstream.Output

        public let upstream: Upstream
        public let transform: @Sendable (Upstream.Failure) -> Failure

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }

        private struct Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let transform: @Sendable (Upstream.Failure) -> Failure

            func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            func receive(_ input: Output) { downstream.receive(input) }
            func receive(completion: Completion<Upstream.Failure>) {
                downstream.receive(completion: completion.mapError(transform))
            }
        }
    }
}
