/// A subscriber with its concrete type hidden, or made from closures.
public struct AnySubscriber<Input: Sendable, Failure: Error>: Subscriber {
    private let receiveSubscription: @Sendable (Subscription) -> Void
    private let receiveValue: @Sendable (Input) -> Void
    private let receiveCompletion: @Sendable (Completion<Failure>) -> Void

    /// Wraps `subscriber`.
    public init<S: Subscriber>(_ subscriber: S) where S.Input == Input, S.Failure == Failure {
        if let erased = subscriber as? AnySubscriber<Input, Failure> {
            self = erased
        } else {
            receiveSubscription = { subscriber.receive(subscription: $0) }
            receiveValue = { subscriber.receive($0) }
            receiveCompletion = { subscriber.receive(completion: $0) }
        }
    }

    /// Makes a subscriber from closures; each defaults to doing nothing.
    public init(
        receiveSubscription: @escaping @Sendable (Subscription) -> Void = { _ in },
        receiveValue: @escaping @Sendable (Input) -> Void = { _ in },
        receiveCompletion: @escaping @Sendable (Completion<Failure>) -> Void = { _ in }
    ) {
        self.receiveSubscription = receiveSubscription
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    /// Receives the token that cancels this subscription.
    public func receive(subscription: Subscription) { receiveSubscription(subscription) }
    /// Receives one value.
    public func receive(_ input: Input) { receiveValue(input) }
    /// Receives the completion.
    public func receive(completion: Completion<Failure>) { receiveCompletion(completion) }
}
