import Synchronization

/// The delivery engine shared by `PassthroughSubject`, `CurrentValueSubject` and `Future`.
///
/// Rules it implements (DESIGN.md, Signals semantics 1–5):
/// - Every delivery (a value, a completion, a new subscriber's subscription and replay) is an item of one FIFO.
///   A thread that finds no drain running becomes the drainer and delivers items until the FIFO is empty; a
///   send made meanwhile (from a callback, or from another thread) is appended and delivered after the
///   current item, so every subscriber sees one order and nothing deadlocks.
/// - A value goes to the subscribers that were subscribed when it was sent (the snapshot is taken under the
///   lock, in O(1) thanks to copy-on-write), in subscription order.
/// - Each subscriber has an `isActive` flag checked right before each call: once `cancel()` has returned,
///   no new call to that subscriber starts, even later in the same delivery loop.
/// - No lock is held while a subscriber is called.
package final class SubjectCore<Output: Sendable, Failure: Error>: Sendable {
    package enum Replay: Sendable {
        /// A new subscriber gets only what is sent after it subscribed (`PassthroughSubject`).
        case none
        /// A new subscriber gets the current value first; after completion only the completion.
        case currentValue
        /// A new subscriber gets the current value first, even after completion (`Future`).
        case currentValueAndCompletion
    }

    final class Conduit: Sendable {
        let subscriber: any Subscriber<Output, Failure>
        private let active = Atomic<Bool>(true)

        init(_ subscriber: any Subscriber<Output, Failure>) {
            self.subscriber = subscriber
        }

        @inline(__always)
        var isActive: Bool { active.load(ordering: .acquiring) }

        /// Returns true if the conduit was active, so only one caller completes it.
        func deactivate() -> Bool {
            active.exchange(false, ordering: .acquiringAndReleasing)
        }
    }

    enum Delivery: Sendable {
        case value(Output, [Conduit?])
        case completion(Completion<Failure>, [Conduit?])
        case subscription(Conduit, Subscription, replay: Output?, completion: Completion<Failure>?)
    }

    struct State: Sendable {
        var subscribers = SubscriberList<Conduit>()
        var queue = FIFO<Delivery>()
        var isDraining = false
        var completion: Completion<Failure>?
        var current: Output?
    }

    private let state: Locked<State>
    private let nextID = Atomic<UInt64>(0)
    private let replay: Replay

    package init(replay: Replay, current: Output? = nil) {
        self.replay = replay
        self.state = Locked(State(current: current))
    }

    // MARK: - Public API

    package var current: Output? {
        state.withLock { $0.current }
    }

    package var isCompleted: Bool {
        state.withLock { $0.completion != nil }
    }

    package var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    package func send(_ value: Output) {
        let snapshot = state.withLock { state -> [Conduit?]? in
            guard state.completion == nil else { return nil }
            if replay != .none { state.current = value }
            guard !state.isDraining else {
                state.queue.append(.value(value, state.subscribers.slots))
                return nil
            }
            state.isDraining = true
            return state.subscribers.slots
        }
        guard let snapshot else { return }
        deliver(value, to: snapshot)
        drain()
    }

    package func send(completion: Completion<Failure>) {
        let startDraining = state.withLock { state -> Bool in
            guard state.completion == nil else { return false }
            state.completion = completion
            state.queue.append(.completion(completion, state.subscribers.removeAll()))
            return becomeDrainer(&state)
        }
        if startDraining { drain() }
    }

    package func subscribe(_ subscriber: any Subscriber<Output, Failure>) {
        let conduit = Conduit(subscriber)
        let id = nextID.add(1, ordering: .relaxed).newValue
        let token = Subscription(cancelsOnRelease: false, onCancel: { [weak self] in
            self?.remove(id: id)
        })
        let startDraining = state.withLock { state -> Bool in
            if let completion = state.completion {
                let replayed = replay == .currentValueAndCompletion ? state.current : nil
                state.queue.append(.subscription(conduit, token, replay: replayed, completion: completion))
            } else {
                state.subscribers.append(conduit, id: id)
                let replayed = replay == .none ? nil : state.current
                state.queue.append(.subscription(conduit, token, replay: replayed, completion: nil))
            }
            return becomeDrainer(&state)
        }
        if startDraining { drain() }
    }

    // MARK: - Actions

    private func remove(id: UInt64) {
        let conduit = state.withLock { $0.subscribers.remove(id: id) }
        _ = conduit?.deactivate()
    }

    private func becomeDrainer(_ state: inout State) -> Bool {
        guard !state.isDraining else { return false }
        state.isDraining = true
        return true
    }

    private func drain() {
        while let delivery = nextDelivery() {
            switch delivery {
            case .value(let value, let snapshot):
                deliver(value, to: snapshot)
            case .completion(let completion, let snapshot):
                for conduit in snapshot {
                    guard let conduit, conduit.deactivate() else { continue }
                    conduit.subscriber.receive(completion: completion)
                }
            case .subscription(let conduit, let token, let replayed, let completion):
                conduit.subscriber.receive(subscription: token)
                if let replayed, conduit.isActive {
                    conduit.subscriber.receive(replayed)
                }
                if let completion, conduit.deactivate() {
                    conduit.subscriber.receive(completion: completion)
                }
            }
        }
    }

    private func nextDelivery() -> Delivery? {
        state.withLock { state in
            if let next = state.queue.popFirst() { return next }
            state.isDraining = false
            return nil
        }
    }

    @inline(__always)
    private func deliver(_ value: Output, to snapshot: [Conduit?]) {
        for conduit in snapshot {
            guard let conduit, conduit.isActive else { continue }
            conduit.subscriber.receive(value)
        }
    }
}

extension SubjectCore.Replay: Equatable {}
