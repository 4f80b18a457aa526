extension Publisher {
    /// Accumulates the values: emits `nextPartialResult(accumulated, value)` for each value.
    ///
    /// ```swift
    /// numbers.scan(0, +)  // running total
    /// ```
    public func scan<Result: Sendable>(
        _ initialResult: Result,
        _ nextPartialResult: @escaping @Sendable (Result, Output) -> Result
    ) -> Publishers.Scan<Self, Result> {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// The publisher `scan(_:_:)` returns. Each subscriber starts again from `initialResult`.
    public struct Scan<Upstream: Publisher, Output: Sendable>: Publisher {
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// Where the accumulation starts, for each subscriber.
        public let initialResult: Output
        /// Combines the accumulation so far with the next value.
        public let nextPartialResult: @Sendable (Output, Upstream.Output) -> Output

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, initial: initialResult, next: nextPartialResult))
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let next: @Sendable (Output, Upstream.Output) -> Output
            let accumulated: Locked<Output>

            init(downstream: Downstream, initial: Output, next: @escaping @Sendable (Output, Upstream.Output) -> Output)
            {
                self.downstream = downstream
                self.next = next
                self.accumulated = Locked(initial)
            }

            func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }

            func receive(_ input: Upstream.Output) {
                // Upstream calls are serial; the user closure runs outside the lock.
                let result = next(accumulated.withLock { $0 }, input)
                accumulated.withLock { $0 = result }
                downstream.receive(result)
            }

            func receive(completion: Completion<Failure>) { downstream.receive(completion: completion) }
        }
    }
}
