/// A publisher that delivers one value and finishes.
///
/// **Behavior**
/// - Each subscriber gets the value and `.finished`, synchronously inside `subscribe`.
public struct Just<Output: Sendable>: Publisher {
    /// This publisher cannot fail.
    public typealias Failure = Never

    /// The value every subscriber receives.
    public let output: Output

    /// Makes a publisher of `output`.
    @inlinable
    public init(_ output: Output) {
        self.output = output
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        let link = UpstreamLink()
        subscriber.receive(subscription: link.downstreamToken())
        guard link.isActive else { return }
        subscriber.receive(output)
        if link.end(cancellingUpstream: false) {
            subscriber.receive(completion: .finished)
        }
    }
}
