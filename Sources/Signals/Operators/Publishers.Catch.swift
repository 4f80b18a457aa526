extension Publisher {
    /// Replaces a failure with the publisher `handler` makes from the error, and goes on with its values.
    public func `catch`<P: Publisher>(
        _ handler: @escaping @Sendable (Failure) -> P
    ) -> Publishers.Catch<Self, P> where P.Output == Output {
        Publishers.Catch(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// The publisher `catch(_:)` returns.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where NewPublisher.Output == Upstream.Output {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = NewPublisher.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// Makes the publisher to continue with from the error.
        public let handler: @Sendable (Upstream.Failure) -> NewPublisher

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let link = UpstreamLink()
            subscriber.receive(subscription: link.downstreamToken())
            upstream.receive(subscriber: UpstreamSide(downstream: subscriber, link: link, handler: handler))
        }

        private struct UpstreamSide<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let link: UpstreamLink
            let handler: @Sendable (Upstream.Failure) -> NewPublisher

            func receive(subscription: Subscription) { link.attach(subscription) }
            func receive(_ input: Output) { if link.isActive { downstream.receive(input) } }

            func receive(completion: Completion<Upstream.Failure>) {
                switch completion {
                case .finished:
                    if link.end(cancellingUpstream: false) { downstream.receive(completion: .finished) }
                case .failure(let error):
                    guard link.isActive else { return }
                    handler(error).receive(subscriber: HandlerSide(downstream: downstream, link: link))
                }
            }
        }

        private struct HandlerSide<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let link: UpstreamLink

            func receive(subscription: Subscription) { link.attach(subscription) }
            func receive(_ input: Output) { if link.isActive { downstream.receive(input) } }
            func receive(completion: Completion<Failure>) {
                if link.end(cancellingUpstream: false) { downstream.receive(completion: completion) }
            }
        }
    }
}
