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
        /// The sink itself while it is active, for the token that `sink` returns: that token reaches the sink
        /// through here, and the sink empties it when it ends, so a completed sink (its closures, and often the
        /// object that keeps the token) is freed as soon as its upstream lets go of it.
        @usableFromInline let holder = Locked<Sink?>(nil)

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
            holder.withLock { $0 = nil }
        }

        /// Cancels the subscription: no closure is called after this returns.
        @inlinable
        public func cancel() {
            if link.end(cancellingUpstream: true) { holder.withLock { $0 = nil } }
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
        let holder = sink.holder
        // Held before subscribing: a publisher that completes inside `receive(subscriber:)` releases it at once.
        holder.withLock { $0 = sink }
        receive(subscriber: sink)
        return Subscription {
            holder.withLock { held in
                defer { held = nil }
                return held
            }?.cancel()
        }
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
