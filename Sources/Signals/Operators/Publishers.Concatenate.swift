extension Publisher {
    /// Emits `values` first, then this publisher's values.
    ///
    /// ```swift
    /// subject.prepend(0)  // a subscriber gets 0, then what the subject sends
    /// ```
    public func prepend(_ values: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        Publishers.Concatenate(prefix: Publishers.Sequence(sequence: values), suffix: self)
    }

    /// Emits `publisher`'s values until it finishes, then this publisher's values.
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
    where P.Output == Output, P.Failure == Failure {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }

    /// Emits this publisher's values until it finishes, then `values`.
    public func append(_ values: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        Publishers.Concatenate(prefix: self, suffix: Publishers.Sequence(sequence: values))
    }
}

extension Publishers {
    /// The publisher `prepend` and `append` return: all of `prefix`, then `suffix` (subscribed only once
    /// `prefix` finishes). A failure of `prefix` ends the stream.
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
    where Prefix.Output == Suffix.Output, Prefix.Failure == Suffix.Failure {
        /// The values this publisher delivers.
        public typealias Output = Suffix.Output
        /// The error this publisher can fail with.
        public typealias Failure = Suffix.Failure

        /// The publisher whose values come first.
        public let prefix: Prefix
        /// The publisher subscribed once `prefix` finishes.
        public let suffix: Suffix

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let link = UpstreamLink()
            subscriber.receive(subscription: link.downstreamToken())
            prefix.receive(subscriber: Side(downstream: subscriber, link: link, next: suffix))
        }

        private struct Side<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let link: UpstreamLink
            /// The publisher to subscribe to when this side finishes; nil on the last side.
            let next: Suffix?

            func receive(subscription: Subscription) { link.attach(subscription) }

            func receive(_ input: Output) {
                if link.isActive { downstream.receive(input) }
            }

            func receive(completion: Completion<Failure>) {
                if case .finished = completion, let next, link.isActive {
                    next.receive(subscriber: Side<Downstream>(downstream: downstream, link: link, next: nil))
                } else if link.end(cancellingUpstream: false) {
                    downstream.receive(completion: completion)
                }
            }
        }
    }
}
