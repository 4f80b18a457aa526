/// What every operator with several sources shares: one serial downstream and the tokens of all its upstreams.
///
/// Merge, combineLatest, flatMap and switchToLatest each keep a `Junction`: the downstream's token cancels
/// every upstream, and a failure from any source cancels the others and ends the stream.
package final class Junction<Output: Sendable, Failure: Error>: Sendable {
    package let downstream: SerialDownstream<Output, Failure>
    package let upstreams = UpstreamBag()

    package init(_ downstream: some Subscriber<Output, Failure>) {
        self.downstream = SerialDownstream(downstream)
    }

    /// Hands the downstream its token; call before subscribing to any source.
    package func start() {
        downstream.start(
            Subscription(cancelsOnRelease: false) { [upstreams, downstream] in
                downstream.cancel()
                upstreams.cancelAll()
            })
    }

    /// Cancels every source and ends the stream with `completion`.
    package func end(with completion: Completion<Failure>) {
        upstreams.cancelAll()
        downstream.finish(completion)
    }
}
