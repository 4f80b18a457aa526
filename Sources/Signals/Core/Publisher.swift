/// A type that delivers a sequence of values over time to the subscribers that attach to it.
///
/// Names and shapes follow Combine, without its demand machinery: a subscriber receives every value that is
/// sent while it is subscribed.
///
/// **Behavior**
/// - A publisher calls one subscriber serially: never two calls at once, `receive(subscription:)` first, then
///   values, then at most one completion.
/// - Delivery is synchronous on the thread that produced the value, unless an operator such as
///   `receive(on:)` moves it.
/// - After a subscription is cancelled, the subscriber receives nothing that had not already started.
public protocol Publisher<Output, Failure>: Sendable {
    /// The values this publisher delivers.
    associatedtype Output: Sendable
    /// The error this publisher can fail with; `Never` when it cannot fail.
    associatedtype Failure: Error

    /// Attaches `subscriber`, which first receives its `Subscription` and then the values and completion.
    ///
    /// Call `subscribe(_:)` or `sink`; this is the requirement a new publisher implements.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure

    /// Subscribes with closures for the values and the completion (see `sink(receiveCompletion:receiveValue:)`).
    ///
    /// The default makes a `Subscribers.Sink` and attaches it. A publisher that can call the closures with no
    /// subscriber object in between implements it; it must keep `Subscribers.Sink`'s rules (nothing called
    /// after the returned token is cancelled or released).
    func sink(
        receiveCompletion: @escaping @Sendable (Completion<Failure>) -> Void,
        receiveValue: @escaping @Sendable (Output) -> Void
    ) -> Subscription
}

extension Publisher {
    /// Attaches `subscriber` to this publisher.
    ///
    /// - Parameter subscriber: receives the subscription, the values and the completion.
    @inlinable
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        receive(subscriber: subscriber)
    }
}

/// A namespace for the publisher types that operators return (`Publishers.Map`, `Publishers.Filter`, …).
public enum Publishers {}
