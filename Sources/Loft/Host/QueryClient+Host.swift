extension QueryClient {
    /// Follows `signals` live: the host's connectivity goes to `setOnline(_:)`, the app's activation to
    /// `setFocused(_:)`, and memory pressure trims the entries nobody observes (see `HostSignals`). Each
    /// change is a `hostSignal` event.
    ///
    /// ```swift
    /// client.follow(.host)
    /// ```
    ///
    /// **Behavior**
    /// - Following while already following changes nothing: one follower per client, until `stopFollowing()`.
    /// - A source that cannot start or fails later is a `hostSignal(.sourceFailed(_:error:))` event; the others
    ///   go on.
    /// - A `TestQueryClient` never calls it: focus, network and time stay the test's.
    ///
    /// - Returns: true when it started following, false when the client already followed.
    @discardableResult
    public func follow(_ signals: HostSignals) -> Bool {
        let follower = HostFollower(sources: signals.sources())
        let isNew = hostFollower.withLock { current -> Bool in
            guard current == nil else { return false }
            current = follower
            return true
        }
        guard isNew else { return false }
        follower.start { [weak self] name, change in self?.apply(change, from: name) }
        return true
    }

    /// Stops following the host's signals; returns once no source reports any more. The client keeps the
    /// focus and connectivity it was last told. Does nothing when it does not follow.
    public func stopFollowing() {
        hostFollower.take()?.stop()
    }

    /// Whether the client follows host signals now.
    public var isFollowingHost: Bool {
        hostFollower.withLock { $0 != nil }
    }

    /// Applies what the source `name` reported.
    private func apply(_ change: HostSignalChange, from name: String) {
        switch change {
        case .online(let isOnline):
            setOnline(isOnline)
            context.emit(.hostSignal(.online(isOnline)))
        case .focused(let isFocused):
            setFocused(isFocused)
            context.emit(.hostSignal(.focused(isFocused)))
        case .memoryPressure(let level):
            let evicted = relieve(level)
            context.emit(.hostSignal(.memoryPressure(level, evicted: evicted)))
        case .failed(let error):
            context.emit(.hostSignal(.sourceFailed(name, error: error)))
        }
    }

    /// Trims for `level`: a warning to half the budget (half what is held, without one), critical to nothing
    /// but the entries in use. Returns how many entries were evicted.
    func relieve(_ level: MemoryPressure) -> Int {
        switch level {
        case .warning: trim(to: (memoryBudget?.limit ?? memoryUsage) / 2, reason: .memoryPressure)
        case .critical: trim(to: 0, reason: .memoryPressure)
        }
    }
}

/// The sources a client follows, started and stopped together.
final class HostFollower: Sendable {
    private let sources: [any HostSignalSource]

    init(sources: [any HostSignalSource]) {
        self.sources = sources
    }

    /// Starts every source, each reporting with its name; one that cannot start is reported as `failed` at
    /// once, and the others start all the same.
    func start(_ report: @escaping @Sendable (String, HostSignalChange) -> Void) {
        for source in sources {
            let name = source.name
            do throws(HostSignalError) {
                try source.start { change in report(name, change) }
            } catch {
                report(name, .failed(error))
            }
        }
    }

    /// Stops every source; returns once none reports any more.
    func stop() {
        for source in sources { source.stop() }
    }
}
