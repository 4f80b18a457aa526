extension Subscribers {
    /// The subscriber behind `sink`: calls a closure for each value and one for the completion.
    ///
    /// **Behavior**
    /// - Nothing is called after `cancel()` returns or after the completion.
    /// - On completion or cancel it releases its upstream, so a finished chain is freed.
    public final class Sink<Input: Sendable, Failure: Error>: Subscriber, Cancellable {
        private let receiveValue: @Sendable (Input) -> Void
        private let receiveCompletion: @Sendable (Completion<Failure>) -> Void
        private let link = UpstreamLink()

        /// Makes a sink with the two closures.
        public init(
            receiveCompletion: @escaping @Sendable (Completion<Failure>) -> Void,
            receiveValue: @escaping @Sendable (Input) -> Void
        ) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }

        public func receive(subscription: Subscription) {
            link.attach(subscription)
        }

        public func receive(_ input: Input) {
            guard link.isActive else { return }
            receiveValue(input)
        }

        public func receive(completion: Completion<Failure>) {
            guard link.end(cancellingUpstream: false) else { return }
            receiveCompletion(completion)
        }

        /// Cancels the subscription: no closure is called after this returns.
        public func cancel() {
            link.end(cancellingUpstream: true)
        }
    }
}

extension Publisher {
    /// Subscribes with closures for the values and the completion.
    ///
    /// ```swift
    /// let subscription = publisher.sink(
    ///     receiveCompletion: { print("done:", $0) },
    ///     receiveValue: { print($0) }
    /// )
    /// ```
    /// - Returns: the token that keeps the subscription alive; releasing it cancels.
    public func sink(
        receiveCompletion: @escaping @Sendable (Completion<Failure>) -> Void,
        receiveValue: @escaping @Sendable (Output) -> Void
    ) -> Subscription {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        receive(subscriber: sink)
        return Subscription { sink.cancel() }
    }
}

extension Publisher where Failure == Never {
    /// Subscribes with a closure for the values of a publisher that cannot fail.
    ///
    /// - Returns: the token that keeps the subscription alive; releasing it cancels.
    public func sink(receiveValue: @escaping @Sendable (Output) -> Void) -> Subscription {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
