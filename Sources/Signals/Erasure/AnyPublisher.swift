/// A publisher with its concrete type hidden: the type to put in an API.
///
/// ```swift
/// func users() -> AnyPublisher<[User], any Error> { … .eraseToAnyPublisher() }
/// ```
public struct AnyPublisher<Output: Sendable, Failure: Error>: Publisher {
    private let base: any Publisher<Output, Failure>

    /// Wraps `publisher`.
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            self = erased
        } else {
            base = publisher
        }
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        // The subscriber goes as it is, not in an `AnySubscriber`: each value then reaches it in one call.
        base.receive(subscriber: subscriber)
    }

    /// Subscribes with closures, the way the wrapped publisher does (see `Publisher.sink`).
    public func sink(
        receiveCompletion: @escaping @Sendable (Completion<Failure>) -> Void,
        receiveValue: @escaping @Sendable (Output) -> Void
    ) -> Subscription {
        base.sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    }
}

extension Publisher {
    /// This publisher as an `AnyPublisher`.
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}
