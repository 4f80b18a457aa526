extension Subscribers {
    /// The subscriber behind `sink`: calls a closure for each value and one for the completion.
    ///
    /// **Behavior**
    /// - Nothing is called after `cancel()` returns or after the completion.
    /// - On completion or cancel it releases its upstream, so a finished chain is freed.
    /// - The token that `sink` returns holds the sink only while it is active: once the sink has completed or
    ///   been cancelled, the token (which you may still keep) no longer keeps the sink or its closures alive.
    ///   A sink you make and keep yourself keeps its closures for as long as you keep it.
    public final class Sink<Input: Sendable, Failure: Error>: Subscriber, Cancellable {
        @usableFromInline let receiveValue: @Sendable (Input) -> Void
        @usableFromInline let receiveCompletion: @Sendable (Completion<Failure>) -> Void
        @usableFromInline let link = UpstreamGate()

        /// Makes a sink with the two closures.
        @inlinable
        public init(
            receiveCompletion: @escaping @Sendable (Completion<Failure>) -> Void,
            receiveValue: @escaping @Sendable (Input) -> Void
        ) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }

        /// Receives the token that cancels this subscription.
        @inlinable
        public func receive(subscription: Subscription) {
            link.attach(subscription)
        }

        /// Receives one value.
        @inlinable
        public func receive(_ input: Input) {
            guard link.isActive else { return }
            receiveValue(input)
        }

        /// Receives the completion.
        @inlinable
        public func receive(completion: Completion<Failure>) {
            guard link.end(cancellingUpstream: false) else { return }
            receiveCompletion(completion)
        }

        /// Cancels the subscription: no closure is called after this returns.
        @inlinable
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
    /// - Returns: the token that keeps the subscription alive; releasing it cancels. Once the publisher has
    ///   completed, the token no longer holds the closures: what they captured is freed although you keep it.
    @inlinable
    public func sink(
        receiveCompletion: @escaping @Sendable (Completion<Failure>) -> Void,
        receiveValue: @escaping @Sendable (Output) -> Void
    ) -> Subscription {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        // The token reaches the sink through its gate, which holds it only while it is active (a completed
        // sink and its closures are freed although the token is kept). Held before subscribing: a publisher
        // that completes inside `receive(subscriber:)` lets go of it at once.
        let cancel = sink.link.hold(sink)
        receive(subscriber: sink)
        return Subscription(cancel)
    }
}

extension Publisher where Failure == Never {
    /// Subscribes with a closure for the values of a publisher that cannot fail.
    ///
    /// - Returns: the token that keeps the subscription alive; releasing it cancels.
    @inlinable
    public func sink(receiveValue: @escaping @Sendable (Output) -> Void) -> Subscription {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
