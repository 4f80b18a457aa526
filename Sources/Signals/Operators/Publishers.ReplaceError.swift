extension Publisher {
    /// Replaces a failure with one last value, `output`, and finishes normally.
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}

extension Publishers {
    /// The publisher `replaceError(with:)` returns; it cannot fail.
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// This publisher cannot fail.
        public typealias Failure = Never

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The value emitted.
        public let output: Output

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.receive(subscriber: Inner(downstream: subscriber, output: output))
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Never {
            let downstream: Downstream
            let output: Output
            let link = UpstreamLink()

            init(downstream: Downstream, output: Output) {
                self.downstream = downstream
                self.output = output
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                downstream.receive(subscription: link.downstreamToken())
            }

            func receive(_ input: Output) { if link.isActive { downstream.receive(input) } }

            func receive(completion: Completion<Upstream.Failure>) {
                guard link.end(cancellingUpstream: false) else { return }
                if case .failure = completion { downstream.receive(output) }
                downstream.receive(completion: .finished)
            }
        }
    }
}
