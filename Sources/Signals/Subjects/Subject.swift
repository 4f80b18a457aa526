/// A publisher that you drive by hand: `send(_:)` delivers a value to its subscribers.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Delivers `value` to every current subscriber, in subscription order. Ignored after completion.
    func send(_ value: Output)
    /// Ends the stream for every subscriber; later subscribers get the completion at once. Only the first
    /// completion counts.
    func send(completion: Completion<Failure>)
}

extension Subject where Output == Void {
    /// Sends `()`.
    public func send() {
        send(())
    }
}
