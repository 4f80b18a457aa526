import Synchronization

/// What a subscriber that can end its stream early keeps: the upstream token and whether it has ended.
///
/// The token may arrive after the subscriber has already ended (for example when it was cancelled from another
/// thread before `receive(subscription:)`); it is then cancelled at once. A non-copyable value, so that a
/// `Sink` holds it inline (one object fewer to visit per value delivered); operators that share one between
/// several inner subscribers use the `UpstreamLink` class.
@usableFromInline
package struct UpstreamGate: ~Copyable, Sendable {
    /// What the lock guards: the upstream token, and the subscriber that owns the gate while it is active
    /// when a token of its own must reach it (`Sink`: see `hold`).
    @usableFromInline
    package struct Links: Sendable {
        @usableFromInline var upstream: Subscription?
        @usableFromInline var owner: (any Cancellable & AnyObject)?

        @inlinable
        init() {}
    }

    @usableFromInline let ended = Atomic<Bool>(false)
    /// The lock's storage is shared with the token `hold` serves, which reaches the owner through it.
    @usableFromInline let links = Locked(Links())

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
        let kept = links.withLock { links -> Bool in
            guard !ended.load(ordering: .acquiring) else { return false }
            links.upstream = subscription
            return true
        }
        if !kept { subscription.cancel() }
    }

    /// Keeps `owner` (the subscriber that holds this gate) until the gate ends, and returns what a token
    /// calls to cancel it: the token then holds the owner only while it is active, so an owner that has
    /// completed is freed with what it captured although its token is still held.
    @inlinable
    package func hold(_ owner: any Cancellable & AnyObject) -> @Sendable () -> Void {
        links.withLock { $0.owner = owner }
        let links = links
        return {
            links.withLock { links in
                defer { links.owner = nil }
                return links.owner
            }?.cancel()
        }
    }

    /// Ends the gate. Returns true for the first caller only; it cancels the upstream token when asked to
    /// (not when the upstream itself completed) and releases it, and the owner, either way.
    @usableFromInline
    @discardableResult
    package func end(cancellingUpstream: Bool) -> Bool {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        let (token, owner) = links.withLock { links in
            defer { links = Links() }
            return (links.upstream, links.owner)
        }
        if cancellingUpstream { token?.cancel() }
        // Released out of the lock (its last reference may go here).
        withExtendedLifetime(owner) {}
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
