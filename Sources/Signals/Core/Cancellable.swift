/// Something that can be cancelled: scheduled work, a subscription.
public protocol Cancellable: Sendable {
    /// Cancels the activity. Idempotent and safe from any thread.
    func cancel()
}
