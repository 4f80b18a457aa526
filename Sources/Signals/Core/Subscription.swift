import Synchronization

/// The token that ends a subscription: the value `sink` returns and the one a subscriber receives.
///
/// **Behavior**
/// - `cancel()` is idempotent and thread-safe; the first call runs the cancellation, later calls do nothing.
/// - The token that `sink` returns (or that you make with `init(_:)`) cancels itself when the last reference to
///   it goes away: keep it (for example with `store(in:)`) for as long as you want values. The token a
///   publisher hands to a subscriber in `receive(subscription:)` does not: a subscriber that ignores it stays
///   subscribed.
/// - After `cancel()` returns, the subscriber receives nothing that had not already started.
///
/// ```swift
/// var subscriptions = Set<Subscription>()
/// subject.sink { print($0) }.store(in: &subscriptions)
/// ```
public final class Subscription: Cancellable, Hashable, Sendable {
    private let isCancelledFlag = Atomic<Bool>(false)
    private let onCancel: Locked<(@Sendable () -> Void)?>
    fileprivate let cancelsOnRelease: Bool

    /// Makes a token that runs `onCancel` the first time it is cancelled, or when it is released.
    ///
    /// - Parameter onCancel: the cancellation; it runs once, on the thread that cancels.
    public init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
        self.cancelsOnRelease = true
    }

    /// Makes a token for an activity that needs no cancellation (it is already over).
    public init() {
        self.onCancel = Locked(nil)
        self.cancelsOnRelease = false
    }

    /// Makes a token that runs `onCancel` once; `cancelsOnRelease: false` makes the token a publisher hands to
    /// its subscriber, which only `cancel()` cancels.
    @usableFromInline
    package init(cancelsOnRelease: Bool, onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
        self.cancelsOnRelease = cancelsOnRelease
    }

    deinit {
        if cancelsOnRelease { cancel() }
    }

    /// Whether `cancel()` has been called.
    public var isCancelled: Bool {
        isCancelledFlag.load(ordering: .acquiring)
    }

    /// Cancels the subscription. Idempotent and thread-safe.
    public func cancel() {
        guard !isCancelledFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The closure is released here, not at deinit, so what it captured does not outlive the cancel.
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Keeps this token in `set`; it cancels when removed from the set or when the set is released.
    public func store(in set: inout Set<Subscription>) {
        set.insert(self)
    }

    /// Keeps this token in `array`.
    public func store(in array: inout [Subscription]) {
        array.append(self)
    }

    /// Two tokens are equal when they are the same object.
    public static func == (lhs: Subscription, rhs: Subscription) -> Bool {
        lhs === rhs
    }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension Cancellable {
    /// Wraps this activity in a `Subscription` that cancels it when released.
    public func asSubscription() -> Subscription {
        if let subscription = self as? Subscription, subscription.cancelsOnRelease { return subscription }
        return Subscription { self.cancel() }
    }
}
