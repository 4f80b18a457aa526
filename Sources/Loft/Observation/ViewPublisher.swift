/// A publisher of an observer's view: each subscriber becomes a relay that the observer keeps and moves from
/// view to view (see `QueryObservation`).
struct ViewPublisher<Output: Sendable>: Publisher {
    typealias Failure = Never

    let subscribe: @Sendable (any Subscriber<Output, Never>) -> Void

    init(_ subscribe: @escaping @Sendable (any Subscriber<Output, Never>) -> Void) {
        self.subscribe = subscribe
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscribe(subscriber)
    }
}
