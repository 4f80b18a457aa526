extension Publisher {
    /// Delivers every event, completion included, `interval` later on the scheduler, in the original order.
    public func delay(for interval: Duration, scheduler: any Scheduler) -> Publishers.Delay<Self> {
        Publishers.Delay(upstream: self, interval: interval, scheduler: scheduler)
    }
}

extension Publishers {
    /// The publisher `delay(for:scheduler:)` returns.
    public struct Delay<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// The length of time the operator works with.
        public let interval: Duration
        /// The scheduler whose clock and queue the operator uses.
        public let scheduler: any Scheduler

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, interval: interval, scheduler: scheduler))
        }

        private struct State: Sendable {
            var events = FIFO<SerialDownstream<Output, Failure>.Event>()
            var timers: [UInt64: any Cancellable] = [:]
            var pending: Set<UInt64> = []
            var nextID: UInt64 = 0
        }

        private final class Inner: Subscriber {
            let downstream: SerialDownstream<Output, Failure>
            let interval: Duration
            let scheduler: any Scheduler
            let link = UpstreamLink()
            let state = Locked(State())

            init(downstream: some Subscriber<Output, Failure>, interval: Duration, scheduler: any Scheduler) {
                self.downstream = SerialDownstream(downstream)
                self.interval = interval
                self.scheduler = scheduler
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                downstream.start(
                    link.downstreamToken { [self] in
                        downstream.cancel()
                        let timers = state.withLock { state in
                            defer {
                                state.timers = [:]
                                state.pending = []
                                state.events.removeAll()
                            }
                            return Array(state.timers.values)
                        }
                        for timer in timers { timer.cancel() }
                    })
            }

            func receive(_ input: Output) {
                if link.isActive { schedule(.value(input)) }
            }

            func receive(completion: Completion<Failure>) {
                if link.end(cancellingUpstream: false) { schedule(.completion(completion)) }
            }

            private func schedule(_ event: SerialDownstream<Output, Failure>.Event) {
                let id = state.withLock { state in
                    state.nextID += 1
                    state.events.append(event)
                    state.pending.insert(state.nextID)
                    return state.nextID
                }
                let timer = scheduler.schedule(after: interval) { [self] in fire(id) }
                state.withLock { state in
                    if state.pending.contains(id) { state.timers[id] = timer }
                }
            }

            private func fire(_ id: UInt64) {
                // Every event waits the same interval, so the one due now is always the oldest queued.
                let event = state.withLock { state -> SerialDownstream<Output, Failure>.Event? in
                    guard state.pending.remove(id) != nil else { return nil }
                    state.timers[id] = nil
                    return state.events.popFirst()
                }
                switch event {
                case .value(let value): downstream.send(value)
                case .completion(let completion): downstream.finish(completion)
                case nil: break
                }
            }
        }
    }
}
