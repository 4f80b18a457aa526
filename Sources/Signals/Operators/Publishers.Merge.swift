extension Publisher {
    /// Interleaves this publisher's values with `other`'s, in the order they arrive.
    ///
    /// Finishes when both have finished; fails (and cancels the other) as soon as one fails.
    public func merge<P: Publisher>(with other: P) -> Publishers.Merge<Self, P>
    where P.Output == Output, P.Failure == Failure {
        Publishers.Merge(a: self, b: other)
    }
}

extension Publishers {
    /// The publisher `merge(with:)` returns. Values from both sides are delivered serially.
    public struct Merge<A: Publisher, B: Publisher>: Publisher where A.Output == B.Output, A.Failure == B.Failure {
        public typealias Output = A.Output
        public typealias Failure = A.Failure

        public let a: A
        public let b: B

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let core = Core(downstream: subscriber)
            core.start()
            a.receive(subscriber: Side(core: core, id: 0))
            b.receive(subscriber: Side(core: core, id: 1))
        }

        private final class Core: Sendable {
            let downstream: SerialDownstream<Output, Failure>
            let upstreams = UpstreamBag()
            let finishedCount = Locked(0)

            init(downstream: some Subscriber<Output, Failure>) {
                self.downstream = SerialDownstream(downstream)
            }

            func start() {
                downstream.start(
                    Subscription(
                        cancelsOnRelease: false,
                        onCancel: { [upstreams, downstream] in
                            downstream.cancel()
                            upstreams.cancelAll()
                        }))
            }

            func complete(_ completion: Completion<Failure>, id: Int) {
                switch completion {
                case .finished:
                    upstreams.remove(id: id)
                    let count = finishedCount.withLock { count in
                        count += 1
                        return count
                    }
                    if count == 2 { downstream.finish(.finished) }
                case .failure:
                    upstreams.cancelAll()
                    downstream.finish(completion)
                }
            }
        }

        private struct Side: Subscriber {
            let core: Core
            let id: Int

            func receive(subscription: Subscription) { core.upstreams.add(subscription, id: id) }
            func receive(_ input: Output) { core.downstream.send(input) }
            func receive(completion: Completion<Failure>) { core.complete(completion, id: id) }
        }
    }
}
