extension Publisher {
    /// Delivers values and completion on `scheduler`, in order, one at a time.
    ///
    /// The subscription itself is handed over synchronously; cancelling stops delivery of what was queued.
    public func receive(on scheduler: any Scheduler) -> Publishers.ReceiveOn<Self> {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler)
    }
}

extension Publishers {
    /// The publisher `receive(on:)` returns.
    public struct ReceiveOn<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The scheduler whose clock and queue the operator uses.
        public let scheduler: any Scheduler

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, scheduler: scheduler))
        }

        private struct State: Sendable {
            var events = FIFO<SerialDownstream<Output, Failure>.Event>()
            var isScheduled = false
        }

        private final class Inner<Downstream: Subscriber>: Subscriber
        where Downstream.Input == Output, Downstream.Failure == Failure {
            let downstream: Downstream
            let scheduler: any Scheduler
            let link = UpstreamLink()
            let state = Locked(State())

            init(downstream: Downstream, scheduler: any Scheduler) {
                self.downstream = downstream
                self.scheduler = scheduler
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                downstream.receive(subscription: link.downstreamToken())
            }

            func receive(_ input: Output) {
                if link.isActive { enqueue(.value(input)) }
            }

            func receive(completion: Completion<Failure>) {
                enqueue(.completion(completion))
            }

            private func enqueue(_ event: SerialDownstream<Output, Failure>.Event) {
                let mustSchedule = state.withLock { state -> Bool in
                    state.events.append(event)
                    guard !state.isScheduled else { return false }
                    state.isScheduled = true
                    return true
                }
                if mustSchedule { scheduler.schedule { [self] in drain() } }
            }

            /// One drain runs at a time (`isScheduled`), so the downstream is called serially and in order.
            private func drain() {
                while let event = next() {
                    switch event {
                    case .value(let value):
                        if link.isActive { downstream.receive(value) }
                    case .completion(let completion):
                        if link.end(cancellingUpstream: false) { downstream.receive(completion: completion) }
                    }
                }
            }

            private func next() -> SerialDownstream<Output, Failure>.Event? {
                state.withLock { state in
                    if let event = state.events.popFirst() { return event }
                    state.isScheduled = false
                    return nil
                }
            }
        }
    }
}
