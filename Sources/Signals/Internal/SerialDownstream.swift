/// Delivers events to one downstream subscriber one at a time and in order, whichever threads produce them.
///
/// Operators with several sources (merge, combineLatest, flatMap, switchToLatest) or with timers (debounce,
/// throttle, delay) produce events on more than one thread. Each event is appended to a FIFO; the thread that
/// finds no drain running delivers until the FIFO is empty (re-entrant sends are appended, never nested).
/// After a completion is accepted, or after `cancel()`, nothing more is accepted; a cancel also drops what
/// was queued and stops a drain before its next event.
package final class SerialDownstream<Input: Sendable, Failure: Error>: Sendable {
    package enum Event: Sendable {
        case value(Input)
        case completion(Completion<Failure>)
    }

    private struct State: Sendable {
        var queue = FIFO<Event>()
        var isDraining = false
        var isClosed = false
        var isCancelled = false
    }

    private let downstream: any Subscriber<Input, Failure>
    private let state = Locked(State())

    package init(_ downstream: any Subscriber<Input, Failure>) {
        self.downstream = downstream
    }

    /// Hands the downstream its token; call before any event.
    package func start(_ token: Subscription) {
        downstream.receive(subscription: token)
    }

    package func send(_ value: Input) {
        if enqueue(.value(value)) { drain() }
    }

    package func finish(_ completion: Completion<Failure>) {
        if enqueue(.completion(completion)) { drain() }
    }

    /// Appends `event`; returns true when the caller must `drain()` (it became the drainer). Safe to call with
    /// another lock held, so an operator can enqueue in the same critical section that computed the event.
    package func enqueue(_ event: Event) -> Bool {
        state.withLock { state in
            guard !state.isClosed, !state.isCancelled else { return false }
            if case .completion = event { state.isClosed = true }
            state.queue.append(event)
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
    }

    /// Whether a completion was accepted or the downstream cancelled.
    package var isClosed: Bool {
        state.withLock { $0.isClosed || $0.isCancelled }
    }

    /// Stops all further delivery; returns true for the first call.
    @discardableResult
    package func cancel() -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.isCancelled = true
            state.queue.removeAll()
            return true
        }
    }

    package func drain() {
        while let event = next() {
            switch event {
            case .value(let value): downstream.receive(value)
            case .completion(let completion): downstream.receive(completion: completion)
            }
        }
    }

    private func next() -> Event? {
        state.withLock { state in
            if !state.isCancelled, let event = state.queue.popFirst() { return event }
            state.isDraining = false
            return nil
        }
    }
}
