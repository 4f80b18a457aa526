/// A publisher that fails at once with an error.
public struct Fail<Output: Sendable, Failure: Error>: Publisher {
    /// The error every subscriber receives.
    public let error: Failure

    /// Makes a publisher that fails with `error`.
    public init(error: Failure) {
        self.error = error
    }

    /// Makes a publisher that fails with `error`, naming its output type.
    public init(outputType: Output.Type, failure error: Failure) {
        self.error = error
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let link = UpstreamLink()
        subscriber.receive(subscription: link.downstreamToken())
        if link.end(cancellingUpstream: false) {
            subscriber.receive(completion: .failure(error))
        }
    }
}
