extension Publisher {
    /// Drops a value when `predicate(previous, value)` says it duplicates the previous passed-on value.
    public func removeDuplicates(
        by predicate: @escaping @Sendable (Output, Output) -> Bool
    ) -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }
}

extension Publisher where Output: Equatable {
    /// Drops a value equal to the previous passed-on value.
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        removeDuplicates(by: ==)
    }
}

extension Publishers {
    /// The publisher `removeDuplicates()` and `removeDuplicates(by:)` return.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The test applied to each value.
        public let predicate: @Sendable (Output, Output) -> Bool

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, predicate: predicate))
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let predicate: @Sendable (Output, Output) -> Bool
            let previous = Locked<Output?>(nil)

            init(downstream: Downstream, predicate: @escaping @Sendable (Output, Output) -> Bool) {
                self.downstream = downstream
                self.predicate = predicate
            }

            func receive(subscription: Subscription) { downstream.receive(subscription: subscription) }

            func receive(_ input: Output) {
                // Upstream calls are serial, so reading and then writing `previous` cannot interleave.
                if let previous = previous.withLock({ $0 }), predicate(previous, input) { return }
                previous.withLock { $0 = input }
                downstream.receive(input)
            }

            func receive(completion: Completion<Failure>) { downstream.receive(completion: completion) }
        }
    }
}
