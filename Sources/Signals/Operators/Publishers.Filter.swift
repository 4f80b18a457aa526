extension Publisher {
    /// Passes on only the values for which `isIncluded` returns true.
    public func filter(_ isIncluded: @escaping @Sendable (Output) -> Bool) -> Publishers.Filter<Self> {
        Publishers.Filter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// The publisher `filter(_:)` returns.
    public struct Filter<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        public let upstream: Upstream
        public let isIncluded: @Sendable (Output) -> Bool

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, isIncluded: isIncluded))
        }

        private struct Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let isIncluded: @Sendable (Output) -> Bool

            func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            func receive(_ input: Output) { if isIncluded(input) { downstream.receive(input) } }
            func receive(completion: Completion<Failure>) { downstream.receive(completion: completion) }
        }
    }
}
