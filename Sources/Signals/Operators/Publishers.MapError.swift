extension Publisher {
    /// Transforms the failure with `transform`.
    @inlinable
    public func mapError<E: Error>(_ transform: @escaping @Sendable (Failure) -> E) -> Publishers.MapError<Self, E> {
        Publishers.MapError(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// The publisher `mapError(_:)` returns.
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The closure applied to each value (or error).
        public let transform: @Sendable (Upstream.Failure) -> Failure

        /// Makes the publisher; the operator method of the same name is the usual way to get one.
        @inlinable
        public init(upstream: Upstream, transform: @escaping @Sendable (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }

        @usableFromInline
        struct Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            @usableFromInline let downstream: Downstream
            @usableFromInline let transform: @Sendable (Upstream.Failure) -> Failure

            @inlinable
            init(downstream: Downstream, transform: @escaping @Sendable (Upstream.Failure) -> Failure) {
                self.downstream = downstream
                self.transform = transform
            }

            @inlinable func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            @inlinable func receive(_ input: Output) { downstream.receive(input) }
            @inlinable func receive(completion: Completion<Upstream.Failure>) {
                downstream.receive(completion: completion.mapError(transform))
            }
        }
    }
}
