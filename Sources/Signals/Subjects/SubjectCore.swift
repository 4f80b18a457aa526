/// The typed half of a subject: sends values and completions through a `SubjectRegistry`.
///
/// Used by `PassthroughSubject`, `CurrentValueSubject` and `Future`. The bookkeeping is in the non-generic
/// registry; this type only delivers typed values to typed subscribers. A value or completion is delivered at
/// once when no drain is running (the fast path), otherwise queued as a job, in order.
///
/// **Behavior**: each subscriber's `isActive` flag is checked right before each call, so once `cancel()` has
/// returned no new call to that subscriber starts, even later in the same delivery loop.
@usableFromInline
package final class SubjectCore<Output: Sendable, Failure: Error>: Sendable {
    @usableFromInline
    final class Box: SubjectSubscriberBox {
        @usableFromInline let subscriber: any Subscriber<Output, Failure>

        @inlinable
        init(_ subscriber: any Subscriber<Output, Failure>) {
            self.subscriber = subscriber
        }

        /// Delivers `value`; the subscriber is called in place (the existential is not copied out of the box).
        @inlinable
        func receive(_ value: Output) {
            subscriber.receive(value)
        }

        @usableFromInline
        func start(_ token: Subscription, replay: (any Sendable)?, completion: (any Sendable)?, conduit: SubjectConduit)
        {
            subscriber.receive(subscription: token)
            // The casts live in functions of their own, called only when there is something to cast: in this
            // unspecialised code, each looks up the metadata of an optional of its type.
            if let replay { self.replay(replay, conduit) }
            if let completion { self.complete(completion, conduit) }
        }

        @inline(never)
        private func replay(_ replay: any Sendable, _ conduit: SubjectConduit) {
            if let value = replay as? Output, conduit.isActive { subscriber.receive(value) }
        }

        @inline(never)
        private func complete(_ completion: any Sendable, _ conduit: SubjectConduit) {
            if let completion = completion as? Completion<Failure>, conduit.deactivate() {
                subscriber.receive(completion: completion)
            }
        }
    }

    @usableFromInline let registry: SubjectRegistry

    @inlinable
    package init(replay: SubjectRegistry.Replay, current: Output? = nil) {
        registry = SubjectRegistry(replay: replay, current: current.map { $0 as any Sendable })
    }

    // MARK: - Public API

    /// The current value, for subjects that keep one.
    @inlinable
    package var current: Output? {
        registry.state.withLock { $0.current } as? Output
    }

    @inlinable
    package var isCompleted: Bool { registry.isCompleted }

    @inlinable
    package var subscriberCount: Int { registry.subscriberCount }

    @inlinable
    package func send(_ value: Output) {
        HeldLocks.assertNoneHeld("a subject's send")
        let snapshot = registry.beginSend(value) { snapshot in { Self.deliver(value, to: snapshot) } }
        guard let snapshot else { return }
        Self.deliver(value, to: snapshot)
        registry.drain()
    }

    @inlinable
    package func send(completion: Completion<Failure>) {
        HeldLocks.assertNoneHeld("a subject's completion")
        let mustDrain = registry.state.withLock { state -> Bool in
            guard !state.isCompleted else { return false }
            state.isCompleted = true
            state.completion = completion
            let snapshot = state.subscribers.removeAll()
            registry.countSubscribers(state)
            state.queue.append { Self.deliver(completion, to: snapshot) }
            return SubjectRegistry.becomeDrainer(&state)
        }
        if mustDrain { registry.drain() }
    }

    @inlinable
    package func subscribe(_ subscriber: any Subscriber<Output, Failure>) {
        registry.subscribe(SubjectConduit(Box(subscriber)))
    }

    // MARK: - Actions

    @inlinable
    static func deliver(_ value: Output, to snapshot: [SubjectConduit?]) {
        for conduit in snapshot {
            guard let conduit, conduit.isActive else { continue }
            ErasedObject.cast(conduit.box, to: Box.self).receive(value)
        }
    }

    @inlinable
    static func deliver(_ completion: Completion<Failure>, to snapshot: [SubjectConduit?]) {
        for conduit in snapshot {
            guard let conduit, conduit.deactivate() else { continue }
            ErasedObject.cast(conduit.box, to: Box.self).subscriber.receive(completion: completion)
        }
    }
}
