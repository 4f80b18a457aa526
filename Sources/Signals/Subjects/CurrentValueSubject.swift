/// A subject that holds a current value and replays it to each new subscriber.
///
/// ```swift
/// let count = CurrentValueSubject<Int, Never>(0)
/// let subscription = count.sink { print($0) }  // prints 0 at once
/// count.value += 1                               // prints 1
/// ```
///
/// **Behavior**
/// - `value` is readable and settable from any thread; setting it is `send(_:)`.
/// - A new subscriber receives the current value first, then later values, in order.
/// - Delivery, ordering, cancellation and completion follow `PassthroughSubject`; after completion a late
///   subscriber gets only the completion, and `send(_:)` no longer changes `value`.
public final class CurrentValueSubject<Output: Sendable, Failure: Error>: Subject {
    @usableFromInline let core: SubjectCore<Output, Failure>

    /// Makes a subject holding `value`.
    @inlinable
    public init(_ value: Output) {
        core = SubjectCore(replay: .currentValue, current: value)
    }

    /// The current value. Setting it sends the new value to every subscriber.
    public var value: Output {
        get {
            guard let current = core.current else {
                preconditionFailure("CurrentValueSubject lost its value; this is a bug in Signals")
            }
            return current
        }
        set { core.send(newValue) }
    }

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
