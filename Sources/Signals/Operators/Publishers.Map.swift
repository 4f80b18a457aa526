extension Publisher {
    /// Transforms each value with `transform`.
    ///
    /// ```swift
    /// subject.map { $0 * 2 }
    /// ```
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// The publisher `map(_:)` returns.
    public struct Map<Upstream: Publisher, Output: Sendable>: Publisher {
        public typealias Failure = Upstream.Failure

        public let upstream: Upstream
        public let transform: @Sendable (Upstream.Output) -> Output

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }

        private struct Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let transform: @Sendable (Upstream.Output) -> Output

            func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            func receive(_ input: Upstream.Output) { downstream.receive(transform(input)) }
            func receive(completion: Completion<Failure>) { downstream.receive(completion: completion) }
        }
    }
}
