/// A publisher that sends no value, and either finishes at once or never completes.
public struct Empty<Output: Sendable, Failure: Error>: Publisher {
    /// Whether a subscriber gets `.finished` at once (true, the default) or nothing ever.
    public let completeImmediately: Bool

    /// Makes an empty publisher.
    ///
    /// - Parameter completeImmediately: true (default) finishes at once; false never completes.
    public init(completeImmediately: Bool = true) {
        self.completeImmediately = completeImmediately
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let link = UpstreamLink()
        subscriber.receive(subscription: link.downstreamToken())
        if completeImmediately, link.end(cancellingUpstream: false) {
            subscriber.receive(completion: .finished)
        }
    }
}
