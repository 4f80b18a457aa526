import Synchronization

/// The typed end of a subject's subscriber: the subject's `SubjectCore` implements it for its types.
@usableFromInline
package protocol SubjectSubscriberBox: AnyObject, Sendable {
    /// Hands the subscriber its token, then the replayed value and the completion, if any (both type-erased).
    func start(_ token: Subscription, replay: (any Sendable)?, completion: (any Sendable)?, conduit: SubjectConduit)
}

/// One subscriber of a subject, without its types: the flag that delivery checks, and the typed box.
///
/// Non-generic so that the subject's bookkeeping is non-generic too (see `SubjectRegistry`).
@usableFromInline
package final class SubjectConduit: Sendable {
    @usableFromInline let active = Atomic<Bool>(true)
    @usableFromInline let box: any SubjectSubscriberBox

    @inlinable
    init(_ box: any SubjectSubscriberBox) {
        self.box = box
    }

    @inlinable
    package var isActive: Bool { active.load(ordering: .acquiring) }

    /// Returns true if the conduit was active, so that only one caller completes it.
    @inlinable
    func deactivate() -> Bool {
        active.exchange(false, ordering: .acquiringAndReleasing)
    }
}

/// The non-generic heart of every subject: who is subscribed, in which order, and the delivery queue.
///
/// The delivery rules it implements:
/// - Every delivery is a job of one FIFO. A thread that finds no drain running becomes the drainer and runs
///   jobs until the FIFO is empty; a send made meanwhile (from a callback, or another thread) is appended and
///   delivered after the current job, so every subscriber sees one order and nothing deadlocks.
/// - A value goes to the subscribers that were subscribed when it was sent, in subscription order (the
///   snapshot is taken under the lock, O(1) thanks to copy-on-write).
/// - No lock is held while a subscriber is called.
///
/// It is not generic on purpose: a subscription made through the `Publisher` protocol runs unspecialised
/// code, and generic bookkeeping there spends most of its time looking up generic metadata at run time.
@usableFromInline
package final class SubjectRegistry: Sendable {
    @usableFromInline
    struct State: Sendable {
        @usableFromInline var subscribers = SubscriberList<SubjectConduit>()
        @usableFromInline var queue = FIFO<@Sendable () -> Void>()
        @usableFromInline var isDraining = false
        @usableFromInline var isCompleted = false
        /// The current value (`CurrentValueSubject`, `Future`), type-erased, when `hasCurrent`. Not an
        /// optional: replacing an optional existential at every send ran the optional's generic code.
        @usableFromInline var currentValue: any Sendable = ()
        @usableFromInline var hasCurrent = false
        /// The completion once there is one, type-erased.
        @usableFromInline var completion: (any Sendable)?

        @inlinable
        init(current: (any Sendable)?) {
            if let current {
                currentValue = current
                hasCurrent = true
            }
        }

        /// The current value, if there is one.
        @inlinable
        var current: (any Sendable)? {
            hasCurrent ? currentValue : nil
        }
    }

    @usableFromInline
    package enum Replay: Sendable, Equatable {
        /// A new subscriber gets only what is sent after it subscribed (`PassthroughSubject`).
        case none
        /// A new subscriber gets the current value first; after completion only the completion.
        case currentValue
        /// A new subscriber gets the current value first, even after completion (`Future`).
        case currentValueAndCompletion
    }

    @usableFromInline let state: Locked<State>
    @usableFromInline let replay: Replay
    private let nextID = Atomic<UInt64>(0)
    /// `state.subscribers.count`, stored under the lock whenever the list changes, so that asking whether
    /// anyone listens (before making an event nobody may hear) takes no lock.
    @usableFromInline let listening = Atomic<Int>(0)

    @usableFromInline
    init(replay: Replay, current: (any Sendable)?) {
        self.replay = replay
        self.state = Locked(State(current: current))
    }

    @usableFromInline
    var subscriberCount: Int {
        listening.load(ordering: .acquiring)
    }

    /// Stores the subscriber count after a change of the list; called with the lock held.
    @usableFromInline
    func countSubscribers(_ state: borrowing State) {
        listening.store(state.subscribers.count, ordering: .releasing)
    }

    @usableFromInline
    var isCompleted: Bool {
        state.withLock { $0.isCompleted }
    }

    /// Registers `conduit` (unless completed) and queues its start: token, replay, and the completion of a
    /// late subscriber.
    @usableFromInline
    func subscribe(_ conduit: SubjectConduit) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let token = Subscription(cancelsOnRelease: false) { [weak self] in
            self?.remove(id: id)
        }
        // Fast path: when no drain is running, this thread becomes the drainer and starts the subscriber
        // itself, without queueing a job.
        let start = state.withLock { state -> (replay: (any Sendable)?, completion: (any Sendable)?)? in
            let replayed: (any Sendable)?
            if state.isCompleted {
                replayed = replay == .currentValueAndCompletion ? state.current : nil
            } else {
                state.subscribers.append(conduit, id: id)
                countSubscribers(state)
                replayed = replay == .none ? nil : state.current
            }
            let completion = state.completion
            guard Self.becomeDrainer(&state) else {
                state.queue.append {
                    conduit.box.start(token, replay: replayed, completion: completion, conduit: conduit)
                }
                return nil
            }
            return (replayed, completion)
        }
        guard let start else { return }
        conduit.box.start(token, replay: start.replay, completion: start.completion, conduit: conduit)
        drain()
    }

    /// Starts sending `value`: keeps it as the current value (when the subject replays) and returns the
    /// subscribers to deliver it to now, after which the caller must `drain()`. Returns nil when the subject
    /// completed, or when a drain is running: then the job that `queued` makes from the subscribers is queued.
    @inlinable
    func beginSend<Value: Sendable>(
        _ value: Value, queued: ([SubjectConduit?]) -> @Sendable () -> Void
    ) -> [SubjectConduit?]? {
        let replays = replay != .none
        return state.withLock { state -> [SubjectConduit?]? in
            guard !state.isCompleted else { return nil }
            if replays {
                state.currentValue = value
                state.hasCurrent = true
            }
            let snapshot = state.subscribers.snapshot
            guard !state.isDraining else {
                state.queue.append(queued(snapshot))
                return nil
            }
            state.isDraining = true
            return snapshot
        }
    }

    /// Appends `job` to the delivery queue; returns true when the caller became the drainer and must `drain()`.
    @usableFromInline
    static func becomeDrainer(_ state: inout State) -> Bool {
        guard !state.isDraining else { return false }
        state.isDraining = true
        return true
    }

    /// Runs queued jobs until the queue is empty, then stops draining.
    @usableFromInline
    func drain() {
        while let job = nextJob() {
            job()
        }
    }

    private func nextJob() -> (@Sendable () -> Void)? {
        state.withLock { state in
            if let job = state.queue.popFirst() { return job }
            state.isDraining = false
            return nil
        }
    }

    private func remove(id: UInt64) {
        let conduit = state.withLock { state in
            defer { countSubscribers(state) }
            return state.subscribers.remove(id: id)
        }
        _ = conduit?.deactivate()
    }
}
