extension Publisher {
    /// Transforms each value with `transform`.
    ///
    /// ```swift
    /// subject.map { $0 * 2 }
    /// ```
    @inlinable
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// The publisher `map(_:)` returns.
    public struct Map<Upstream: Publisher, Output: Sendable>: Publisher {
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The closure applied to each value (or error).
        public let transform: @Sendable (Upstream.Output) -> Output

        /// Makes the publisher; the operator method of the same name is the usual way to get one.
        @inlinable
        public init(upstream: Upstream, transform: @escaping @Sendable (Upstream.Output) -> Output) {
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
            @usableFromInline let transform: @Sendable (Upstream.Output) -> Output

            @inlinable
            init(downstream: Downstream, transform: @escaping @Sendable (Upstream.Output) -> Output) {
                self.downstream = downstream
                self.transform = transform
            }

            @inlinable func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }
            @inlinable func receive(_ input: Upstream.Output) { downstream.receive(transform(input)) }
            @inlinable func receive(completion: Completion<Failure>) { downstream.receive(completion: completion) }
        }
    }
}
