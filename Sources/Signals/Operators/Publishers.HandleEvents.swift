extension Publisher {
    /// Runs side effects on the events that pass, without changing them (logging, metrics).
    ///
    /// - Parameters:
    ///   - receiveSubscription: called when the subscription starts.
    ///   - receiveOutput: called before each value is passed on.
    ///   - receiveCompletion: called before the completion is passed on.
    ///   - receiveCancel: called when the downstream cancels (not after a completion).
    public func handleEvents(
        receiveSubscription: (@Sendable (Subscription) -> Void)? = nil,
        receiveOutput: (@Sendable (Output) -> Void)? = nil,
        receiveCompletion: (@Sendable (Completion<Failure>) -> Void)? = nil,
        receiveCancel: (@Sendable () -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(
            upstream: self,
            receiveSubscription: receiveSubscription,
            receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion,
            receiveCancel: receiveCancel
        )
    }
}

extension Publishers {
    /// The publisher `handleEvents(…)` returns.
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// Called when the subscription starts.
        public let receiveSubscription: (@Sendable (Subscription) -> Void)?
        /// Called before each value is passed on.
        public let receiveOutput: (@Sendable (Output) -> Void)?
        /// Called before the completion is passed on.
        public let receiveCompletion: (@Sendable (Completion<Failure>) -> Void)?
        /// Called when the downstream cancels.
        public let receiveCancel: (@Sendable () -> Void)?

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, events: self))
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let events: HandleEvents
            let link = UpstreamLink()

            init(downstream: Downstream, events: HandleEvents) {
                self.downstream = downstream
                self.events = events
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                events.receiveSubscription?(subscription)
                downstream.receive(subscription: link.downstreamToken(onCancel: events.receiveCancel))
            }

            func receive(_ input: Output) {
                guard link.isActive else { return }
                events.receiveOutput?(input)
                downstream.receive(input)
            }

            func receive(completion: Completion<Failure>) {
                guard link.end(cancellingUpstream: false) else { return }
                events.receiveCompletion?(completion)
                downstream.receive(completion: completion)
            }
        }
    }
}
