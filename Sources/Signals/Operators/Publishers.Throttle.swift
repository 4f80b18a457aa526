extension Publisher {
    /// Emits at most one value per `interval`.
    ///
    /// **Behavior**
    /// - A value that arrives when no window is open is emitted at once and opens a window of `interval`.
    /// - Values during a window are held: the latest (`latest: true`) or the first (`latest: false`); when the
    ///   window closes the held value is emitted on the scheduler and opens the next window.
    /// - When the upstream finishes, a held value is emitted at once, then `.finished`; a failure drops it.
    public func throttle(
        for interval: Duration,
        scheduler: any Scheduler,
        latest: Bool
    ) -> Publishers.Throttle<Self> {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}

extension Publishers {
    /// The publisher `throttle(for:scheduler:latest:)` returns.
    public struct Throttle<Upstream: Publisher>: Publisher {
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
        /// Whether a window emits its latest value (true) or its first (false).
        public let latest: Bool

        /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, throttle: self))
        }

        private struct State: Sendable {
            var window: UInt64 = 0
            var isWindowOpen = false
            var held: Output?
            var timer: (any Cancellable)?
        }

        private final class Inner: Subscriber {
            let downstream: SerialDownstream<Output, Failure>
            let throttle: Throttle
            let link = UpstreamLink()
            let state = Locked(State())

            init(downstream: some Subscriber<Output, Failure>, throttle: Throttle) {
                self.downstream = SerialDownstream(downstream)
                self.throttle = throttle
            }

            func receive(subscription: Subscription) {
                link.attach(subscription)
                downstream.start(
                    link.downstreamToken { [self] in
                        downstream.cancel()
                        closeWindow()?.cancel()
                    })
            }

            func receive(_ input: Output) {
                guard link.isActive else { return }
                let window = state.withLock { state -> UInt64? in
                    guard !state.isWindowOpen else {
                        if throttle.latest || state.held == nil { state.held = input }
                        return nil
                    }
                    state.isWindowOpen = true
                    state.window += 1
                    return state.window
                }
                guard let window else { return }
                downstream.send(input)
                openWindow(window)
            }

            func receive(completion: Completion<Failure>) {
                guard link.end(cancellingUpstream: false) else { return }
                let held = state.withLock { $0.held }
                closeWindow()?.cancel()
                if case .finished = completion, let held { downstream.send(held) }
                downstream.finish(completion)
            }

            private func openWindow(_ window: UInt64) {
                let timer = throttle.scheduler.schedule(after: throttle.interval) { [self] in windowEnded(window) }
                let isStale = state.withLock { state -> Bool in
                    guard state.window == window, state.isWindowOpen else { return true }
                    state.timer = timer
                    return false
                }
                if isStale { timer.cancel() }
            }

            private func windowEnded(_ window: UInt64) {
                let next = state.withLock { state -> (UInt64, Output)? in
                    guard state.window == window else { return nil }
                    state.timer = nil
                    guard let held = state.held else {
                        state.isWindowOpen = false
                        return nil
                    }
                    state.held = nil
                    state.window += 1
                    return (state.window, held)
                }
                guard let (nextWindow, held) = next else { return }
                downstream.send(held)
                openWindow(nextWindow)
            }

            private func closeWindow() -> (any Cancellable)? {
                state.withLock { state in
                    state.window += 1
                    state.isWindowOpen = false
                    state.held = nil
                    defer { state.timer = nil }
                    return state.timer
                }
            }
        }
    }
}
