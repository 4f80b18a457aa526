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
        /// The values this publisher delivers.
        public typealias Output = A.Output
        /// The error this publisher can fail with.
        public typealias Failure = A.Failure

        /// The first source.
        public let a: A
        /// The second source.
        public let b: B

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let core = Core(downstream: subscriber)
            core.junction.start()
            a.receive(subscriber: Side(core: core, id: 0))
            b.receive(subscriber: Side(core: core, id: 1))
        }

        private final class Core: Sendable {
            let junction: Junction<Output, Failure>
            let finishedCount = Locked(0)

            init(downstream: some Subscriber<Output, Failure>) {
                self.junction = Junction(downstream)
            }

            func complete(_ completion: Completion<Failure>, id: Int) {
                switch completion {
                case .finished:
                    junction.upstreams.remove(id: id)
                    let count = finishedCount.withLock { count in
                        count += 1
                        return count
                    }
                    if count == 2 { junction.downstream.finish(.finished) }
                case .failure:
                    junction.end(with: completion)
                }
            }
        }

        private struct Side: Subscriber {
            let core: Core
            let id: Int

            func receive(subscription: Subscription) { core.junction.upstreams.add(subscription, id: id) }
            func receive(_ input: Output) { core.junction.downstream.send(input) }
            func receive(completion: Completion<Failure>) { core.complete(completion, id: id) }
        }
    }
}
