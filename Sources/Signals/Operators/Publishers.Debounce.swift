extension Publisher {
    /// Emits a value only after `dueTime` has passed without another value (the last of a burst).
    ///
    /// ```swift
    /// searchText.debounce(for: .milliseconds(300), scheduler: scheduler)
    /// ```
    /// **Behavior**
    /// - Each value restarts the wait; the value emitted is the latest, on the scheduler.
    /// - When the upstream finishes, a value still waiting is emitted at once, then `.finished`
    ///   (nothing is lost); a failure drops it and is passed on at once.
    public func debounce(for dueTime: Duration, scheduler: any Scheduler) -> Publishers.Debounce<Self> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler)
    }
}

extension Publishers {
    /// The publisher `debounce(for:scheduler:)` returns.
    public struct Debounce<Upstream: Publisher>: Publisher {
        /// The values this publisher delivers.
        public typealias Output = Upstream.Output
        /// The error this publisher can fail with.
        public typealias Failure = Upstream.Failure

        /// The publisher this operator subscribes to.
        public let upstream: Upstream
        /// How long the upstream must stay quiet before the latest value is emitted.
        public let dueTime: Duration
        /// The scheduler whose clock and queue the operator uses.
        public let scheduler: any Scheduler

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, dueTime: dueTime, scheduler: scheduler))
        }

        private struct State: Sendable {
            var generation: UInt64 = 0
            var pending: Output?
            var timer: (any Cancellable)?
        }

        private final class Inner: Subscriber {
            let downstream: SerialDownstream<Output, Failure>
            let dueTime: Duration
            let scheduler: any Scheduler
            let link = UpstreamLink()
            let state = Locked(State())

            init(downstream: some Subscriber<Output, Failure>, dueTime: Duration, scheduler: any Scheduler) {
                self.downstream = SerialDownstream(downstream)
                self.dueTime = dueTime
                self.scheduler = scheduler
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                downstream.start(
                    link.downstreamToken { [self] in
                        downstream.cancel()
                        takeTimer()?.cancel()
                    })
            }

            func receive(_ input: Output) {
                guard link.isActive else { return }
                let (generation, previous) = state.withLock { state in
                    state.generation += 1
                    state.pending = input
                    defer { state.timer = nil }
                    return (state.generation, state.timer)
                }
                previous?.cancel()
                let timer = scheduler.schedule(after: dueTime) { [self] in fire(generation) }
                let isStale = state.withLock { state -> Bool in
                    guard state.generation == generation, state.pending != nil else { return true }
                    state.timer = timer
                    return false
                }
                if isStale { timer.cancel() }
            }

            func receive(completion: Completion<Failure>) {
                guard link.end(cancellingUpstream: false) else { return }
                let (pending, timer) = state.withLock { state in
                    state.generation += 1
                    defer {
                        state.pending = nil
                        state.timer = nil
                    }
                    return (state.pending, state.timer)
                }
                timer?.cancel()
                if case .finished = completion, let pending { downstream.send(pending) }
                downstream.finish(completion)
            }

            private func fire(_ generation: UInt64) {
                let value = state.withLock { state -> Output? in
                    guard state.generation == generation else { return nil }
                    defer {
                        state.pending = nil
                        state.timer = nil
                    }
                    return state.pending
                }
                if let value { downstream.send(value) }
            }

            private func takeTimer() -> (any Cancellable)? {
                state.withLock { state in
                    state.generation += 1
                    state.pending = nil
                    defer { state.timer = nil }
                    return state.timer
                }
            }
        }
    }
}
