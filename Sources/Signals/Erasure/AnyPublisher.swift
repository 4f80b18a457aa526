/// A publisher with its concrete type hidden: the type to put in an API.
///
/// ```swift
/// func users() -> AnyPublisher<[User], any Error> { … .eraseToAnyPublisher() }
/// ```
public struct AnyPublisher<Output: Sendable, Failure: Error>: Publisher {
    private let subscribe: @Sendable (any Subscriber<Output, Failure>) -> Void

    /// Wraps `publisher`.
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            self = erased
        } else {
            subscribe = { publisher.receive(subscriber: $0) }
        }
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        // As an existential, not an `AnySubscriber`: each value then reaches the subscriber in one call, not
        // through a closure.
        subscribe(subscriber)
    }
}

extension Publisher {
    /// This publisher as an `AnyPublisher`.
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}
