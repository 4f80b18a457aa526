/// A subscriber that a `DirectSubject` calls as its own class: no existential, no box between them.
package protocol DirectReceiver<Input>: SubjectSubscriberBox {
    associatedtype Input: Sendable

    /// Receives one value.
    func receive(_ input: Input)
}

/// A subject whose subscribers are all of one final class, called directly: the fan-out of a value costs one
/// method call per subscriber. Used inside the package where one type of subscriber listens to a channel
/// (an observer's relays); the public subjects take any `Subscriber`.
///
/// **Behavior**: the delivery rules of `SubjectRegistry` (one order, no lock held while a receiver runs, a
/// send made during a delivery queued after it); a new receiver gets the current value first (its `start`).
package final class DirectSubject<Receiver: DirectReceiver>: Sendable {
    @usableFromInline let registry: SubjectRegistry

    /// Makes a subject holding `value`.
    @inlinable
    package init(_ value: Receiver.Input) {
        registry = SubjectRegistry(replay: .currentValue, current: value)
    }

    /// Sends `value` to every receiver, in subscription order.
    @inlinable
    package func send(_ value: Receiver.Input) {
        HeldLocks.assertNoneHeld("DirectSubject.send")
        let snapshot = registry.beginSend(value) { snapshot in { Self.deliver(value, to: snapshot) } }
        guard let snapshot else { return }
        Self.deliver(value, to: snapshot)
        registry.drain()
    }

    /// Attaches `receiver`: its `start` gets the token and the current value.
    @inlinable
    package func subscribe(_ receiver: Receiver) {
        registry.subscribe(SubjectConduit(receiver))
    }

    /// How many receivers are attached now (for tests).
    @inlinable
    package var subscriberCount: Int { registry.subscriberCount }

    /// The receivers attached now, in subscription order (for tests).
    @inlinable
    package var receivers: [Receiver] {
        registry.state.withLock { $0.subscribers.snapshot }.compactMap { conduit in
            guard let conduit, conduit.isActive else { return nil }
            return ErasedObject.cast(conduit.box, to: Receiver.self)
        }
    }

    @inlinable
    static func deliver(_ value: Receiver.Input, to snapshot: [SubjectConduit?]) {
        for conduit in snapshot {
            guard let conduit, conduit.isActive else { continue }
            ErasedObject.cast(conduit.box, to: Receiver.self).receive(value)
        }
    }
}
