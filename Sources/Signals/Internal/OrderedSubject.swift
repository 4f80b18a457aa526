/// A `CurrentValueSubject` that an owner fills from inside its own critical section: `enqueue` under the
/// owner's lock fixes the order, `drain` after the lock is released delivers. Updates made concurrently reach
/// subscribers in the order they were made, and no subscriber runs under the owner's lock.
package final class OrderedSubject<Value: Sendable>: Sendable {
    /// The subject subscribers attach to; it replays the latest delivered value.
    package let subject: CurrentValueSubject<Value, Never>
    private let feed: SerialDownstream<Value, Never>

    package init(_ initial: Value) {
        let subject = CurrentValueSubject<Value, Never>(initial)
        self.subject = subject
        feed = SerialDownstream(AnySubscriber(receiveValue: { subject.send($0) }))
    }

    /// Queues `value`; safe under another lock. Returns true when the caller must `drain()` once unlocked.
    package func enqueue(_ value: Value) -> Bool {
        feed.enqueue(.value(value))
    }

    /// Delivers what is queued, in order.
    package func drain() {
        feed.drain()
    }
}
