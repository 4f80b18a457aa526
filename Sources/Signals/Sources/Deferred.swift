/// A publisher that makes a new publisher for each subscriber, when it subscribes.
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    /// The values this publisher delivers.
    public typealias Output = DeferredPublisher.Output
    /// The error this publisher can fail with.
    public typealias Failure = DeferredPublisher.Failure

    /// Called once per subscriber.
    public let createPublisher: @Sendable () -> DeferredPublisher

    /// Makes a publisher that calls `createPublisher` at each subscription.
    public init(createPublisher: @escaping @Sendable () -> DeferredPublisher) {
        self.createPublisher = createPublisher
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        createPublisher().receive(subscriber: subscriber)
    }
}
