extension Publisher {
    /// Transforms each value with a throwing closure; a thrown error fails the stream and cancels upstream.
    public func tryMap<T: Sendable>(_ transform: @escaping @Sendable (Output) throws -> T) -> Publishers.TryMap<Self, T>
    {
        Publishers.TryMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// The publisher `tryMap(_:)` returns. Its failure is `any Error`: the upstream's error or the thrown one.
    public struct TryMap<Upstream: Publisher, Output: Sendable>: Publisher {
        /// The error this publisher can fail with.
        public typealias Failure = any Error

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The closure applied to each value (or error).
        public let transform: @Sendable (Upstream.Output) throws -> Output

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let transform: @Sendable (Upstream.Output) throws -> Output
            let link = UpstreamLink()

            init(downstream: Downstream, transform: @escaping @Sendable (Upstream.Output) throws -> Output) {
                self.downstream = downstream
                self.transform = transform
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                downstream.receive(subscription: link.downstreamToken())
            }

            func receive(_ input: Upstream.Output) {
                guard link.isActive else { return }
                do {
                    downstream.receive(try transform(input))
                } catch {
                    if link.end(cancellingUpstream: true) { downstream.receive(completion: .failure(error)) }
                }
            }

            func receive(completion: Completion<Upstream.Failure>) {
                if link.end(cancellingUpstream: false) { downstream.receive(completion: completion.eraseError) }
            }
        }
    }
}
