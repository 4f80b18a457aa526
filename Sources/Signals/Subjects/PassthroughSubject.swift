/// A subject that delivers each value to the subscribers it has at that moment, and keeps no value.
///
/// ```swift
/// let subject = PassthroughSubject<Int, Never>()
/// let subscription = subject.sink { print($0) }
/// subject.send(1)  // prints 1
/// ```
///
/// **Behavior**
/// - Delivery is synchronous on the sending thread, to subscribers in subscription order.
/// - A value sent while another is being delivered (from a callback or another thread) is queued and
///   delivered, in order, by the thread already delivering; nothing deadlocks and nothing is reordered.
/// - A subscriber cancelled during a delivery gets nothing after its `cancel()` returns.
/// - After completion it delivers nothing more; a late subscriber gets the completion at once.
/// - A subject nobody references is freed together with its subscriptions. Thread-safe.
public final class PassthroughSubject<Output: Sendable, Failure: Error>: Subject {
    @usableFromInline let core = SubjectCore<Output, Failure>(replay: .none)

    /// Makes a subject with no subscribers.
    @inlinable
    public init() {}

    /// Sends `value` to every current subscriber, in subscription order; ignored after completion.
    @inlinable
    public func send(_ value: Output) {
        core.send(value)
    }

    /// Ends the stream for every subscriber; only the first completion counts.
    @inlinable
    public func send(completion: Completion<Failure>) {
        core.send(completion: completion)
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.subscribe(subscriber)
    }

    /// How many subscribers are attached now (for diagnostics and tests).
    @inlinable
    public var subscriberCount: Int {
        core.subscriberCount
    }
}
