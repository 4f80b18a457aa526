/// What the token that `sink` returns holds: the sink, until the sink ends.
///
/// The token must keep an active sink alive (releasing the token cancels it), but a sink that has completed
/// must not be kept by a token its user still holds: it holds the user's closures, and with them often the
/// very object that holds the token. The token therefore reaches the sink through this holder, which the sink
/// empties when it ends; the sink is then freed as soon as its upstream lets go of it.
@usableFromInline
package final class SinkHolder: Sendable {
    @usableFromInline let held = Locked<(any Cancellable)?>(nil)

    @inlinable
    package init() {}

    /// Holds `sink` until `release()` or `take()`.
    @inlinable
    package func hold(_ sink: any Cancellable) {
        held.withLock { $0 = sink }
    }

    /// Lets go of the sink.
    @inlinable
    package func release() {
        _ = take()
    }

    /// Hands over the sink, if it is still held, and lets go of it.
    @inlinable
    package func take() -> (any Cancellable)? {
        held.withLock { held in
            defer { held = nil }
            return held
        }
    }
}
