extension Publisher {
    /// Passes on only the values for which `isIncluded` returns true.
    @inlinable
    public func filter(_ isIncluded: @escaping @Sendable (Output) -> Bool) -> Publishers.Filter<Self> {
        Publishers.Filter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// The publisher `filter(_:)` returns.
    public struct Filter<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// Returns true for the values to pass on.
        public let isIncluded: @Sendable (Output) -> Bool

        /// Makes the publisher; the operator method of the same name is the usual way to get one.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping @Sendable (Output) -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, isIncluded: isIncluded))
        }

        @usableFromInline
        struct Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            @usableFromInline let downstream: Downstream
            @usableFromInline let isIncluded: @Sendable (Output) -> Bool

            @inlinable
            init(downstream: Downstream, isIncluded: @escaping @Sendable (Output) -> Bool) {
                self.downstream = downstream
                self.isIncluded = isIncluded
            }

            @inlinable func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            @inlinable func receive(_ input: Output) { if isIncluded(input) { downstream.receive(input) } }
            @inlinable func receive(completion: Completion<Failure>) { downstream.receive(completion: completion) }
        }
    }
}
