extension Publisher where Failure == Never {
    /// Changes the declared failure type of a publisher that cannot fail, so it composes with ones that can.
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}

extension Publishers {
    /// The publisher `setFailureType(to:)` returns; it never actually fails.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output

        /// The publisher this operator subscribes to.
        public let upstream: Upstream

        /// Makes the publisher; the operator method of the same name is the usual way to get one.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }

        @usableFromInline
        struct Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            @usableFromInline let downstream: Downstream

            @inlinable
            init(downstream: Downstream) {
                self.downstream = downstream
            }

            @inlinable func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            @inlinable func receive(_ input: Output) { downstream.receive(input) }
            @inlinable func receive(completion: Completion<Never>) { downstream.receive(completion: .finished) }
        }
    }
}
