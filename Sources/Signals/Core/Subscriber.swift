/// A type that receives the values and the completion of a publisher.
///
/// **Behavior**
/// - `receive(subscription:)` comes first, exactly once; keep the subscription to cancel early.
/// - `receive(_:)` is called for each value, never concurrently with another call to this subscriber.
/// - `receive(completion:)` comes at most once, last.
public protocol Subscriber<Input, Failure>: Sendable {
    /// The values this subscriber accepts.
    associatedtype Input: Sendable
    /// The error this subscriber accepts in a failure completion.
    associatedtype Failure: Error

    /// Receives the token that cancels this subscription.
    func receive(subscription: Subscription)
    /// Receives one value.
    func receive(_ input: Input)
    /// Receives the end of the stream: `.finished` or `.failure(error)`.
    func receive(completion: Completion<Failure>)
}

/// A namespace for the ready-made subscribers (`Subscribers.Sink`).
public enum Subscribers {}
