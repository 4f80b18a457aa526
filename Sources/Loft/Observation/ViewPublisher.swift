/// A publisher of an observer's view: each subscriber becomes a relay that the observer keeps and moves from
/// view to view (see `QueryObservation`). `sink` makes a relay that calls the closure itself, with no
/// subscriber object in between.
struct ViewPublisher<Output: Sendable>: Publisher {
    typealias Failure = Never

    /// Makes the relay of a downstream, keeps it and returns the token that removes it.
    let subscribe: @Sendable (ViewDownstream<Output>) -> Subscription

    init(_ subscribe: @escaping @Sendable (ViewDownstream<Output>) -> Subscription) {
        self.subscribe = subscribe
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        _ = subscribe(
            ViewDownstream(open: { subscriber.receive(subscription: $0) }, receive: { subscriber.receive($0) }))
    }

    func sink(
        receiveCompletion: @escaping @Sendable (Completion<Never>) -> Void,
        receiveValue: @escaping @Sendable (Output) -> Void
    ) -> Subscription {
        subscribe(ViewDownstream(open: nil, receive: receiveValue))
    }
}

/// Where a relay delivers: a subscriber's two calls as closures, or the closure of a `sink`.
struct ViewDownstream<Input: Sendable>: Sendable {
    /// Hands the subscriber its token; nil for a `sink`, whose token is returned to the caller (and cancels
    /// when released).
    let open: (@Sendable (Subscription) -> Void)?
    let receive: @Sendable (Input) -> Void
}
