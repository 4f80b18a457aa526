extension Publishers {
    /// A publisher that delivers the elements of a sequence, then finishes.
    public struct Sequence<Elements: Swift.Sequence & Sendable, Failure: Error>: Publisher
    where Elements.Element: Sendable {
        /// The values this publisher delivers.
        public typealias Output = Elements.Element

        /// The elements each subscriber receives, in order.
        public let sequence: Elements

        /// Makes a publisher of `sequence`.
        @inlinable
        public init(sequence: Elements) {
            self.sequence = sequence
        }

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let link = UpstreamLink()
            subscriber.receive(subscription: link.downstreamToken())
            for element in sequence {
                guard link.isActive else { return }
                subscriber.receive(element)
            }
            if link.end(cancellingUpstream: false) {
                subscriber.receive(completion: .finished)
            }
        }
    }
}

extension Sequence where Self: Sendable, Element: Sendable {
    /// A publisher of this sequence's elements, which then finishes.
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> {
        Publishers.Sequence(sequence: self)
    }
}
