import Synchronization

/// What a subscriber that can end its stream early keeps: the upstream token and whether it has ended.
///
/// The token may arrive after the subscriber has already ended (for example when it was cancelled from another
/// thread before `receive(subscription:)`); it is then cancelled at once. A non-copyable value, so that a
/// `Sink` holds it inline (one object fewer to visit per value delivered); operators that share one between
/// several inner subscribers use the `UpstreamLink` class.
@usableFromInline
package struct UpstreamGate: ~Copyable, Sendable {
    @usableFromInline let ended = Atomic<Bool>(false)
    @usableFromInline let upstream = Locked<Subscription?>(nil)

    @inlinable
    package init() {}

    /// False once `end` has been called.
    @inlinable
    package var isActive: Bool {
        !ended.load(ordering: .acquiring)
    }

    /// Keeps the upstream token, or cancels it when the gate has already ended.
    @usableFromInline
    package func attach(_ subscription: Subscription) {
        let kept = upstream.withLock { stored -> Bool in
            guard !ended.load(ordering: .acquiring) else { return false }
            stored = subscription
            return true
        }
        if !kept { subscription.cancel() }
    }

    /// Ends the gate. Returns true for the first caller only; it cancels the upstream token when asked to
    /// (not when the upstream itself completed) and releases it either way.
    @usableFromInline
    @discardableResult
    package func end(cancellingUpstream: Bool) -> Bool {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        let token = upstream.withLock { stored in
            defer { stored = nil }
            return stored
        }
        if cancellingUpstream { token?.cancel() }
        return true
    }
}

/// An `UpstreamGate` that several inner subscribers of one operator share.
@usableFromInline
package final class UpstreamLink: Sendable {
    @usableFromInline let gate = UpstreamGate()

    @usableFromInline
    package init() {}

    /// False once `end` has been called.
    @inlinable
    package var isActive: Bool { gate.isActive }

    /// Keeps the upstream token, or cancels it when the link has already ended.
    @usableFromInline
    package func attach(_ subscription: Subscription) {
        gate.attach(subscription)
    }

    /// Ends the link; true for the first caller only (see `UpstreamGate.end`).
    @usableFromInline
    @discardableResult
    package func end(cancellingUpstream: Bool) -> Bool {
        gate.end(cancellingUpstream: cancellingUpstream)
    }

    /// A token for the downstream that ends this link and cancels the upstream.
    @usableFromInline
    package func downstreamToken(onCancel: (@Sendable () -> Void)? = nil) -> Subscription {
        Subscription(
            cancelsOnRelease: false,
            onCancel: { [self] in
                if end(cancellingUpstream: true) { onCancel?() }
            })
    }
}
