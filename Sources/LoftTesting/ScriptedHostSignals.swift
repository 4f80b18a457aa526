import Loft

/// Host signals a test sends by hand: give `signals` to `QueryClient.follow(_:)` where the code under test
/// follows the host, then say what the host would.
///
/// ```swift
/// let host = ScriptedHostSignals()
/// test.client.follow(host.signals)
/// host.send(.online(false))                 // as the network going away would
/// host.send(.memoryPressure(.critical))     // as the system running out of memory would
/// ```
///
/// **Behavior**
/// - A change is applied on the sending thread, before `send` returns, as the client applies a platform's.
/// - Nothing is sent while no client follows it (before `follow`, after `stopFollowing()`).
/// - Made with `failingToStartWith`, it refuses to start, as a platform source that cannot would: the client
///   records a `hostSignal(.sourceFailed)` event.
public final class ScriptedHostSignals: HostSignalSource {
    /// What the host says.
    public enum Change: Sendable {
        case online(Bool)
        case focused(Bool)
        case memoryPressure(MemoryPressure)
        /// The source stops with this error.
        case failure(HostSignalError)
    }

    /// The source's name in `HostSignalEvent.sourceFailed`.
    public let name: String
    private let startFailure: HostSignalError?
    private let reporter = Locked<(@Sendable (HostSignalChange) -> Void)?>(nil)
    private let counts = Locked((starts: 0, stops: 0))

    /// Makes scripted signals.
    ///
    /// - Parameters:
    ///   - name: the source's name in failure events. Default `"scripted"`.
    ///   - failure: an error the source fails to start with. Default none: it starts.
    public init(name: String = "scripted", failingToStartWith failure: HostSignalError? = nil) {
        self.name = name
        startFailure = failure
    }

    /// The signals to follow (`QueryClient.follow(_:)`).
    public var signals: HostSignals {
        HostSignals(sources: { [self] })
    }

    /// How many times a client started it.
    public var starts: Int {
        counts.withLock { $0.starts }
    }

    /// How many times a client stopped it.
    public var stops: Int {
        counts.withLock { $0.stops }
    }

    /// Says `change` to the client that follows, if any.
    public func send(_ change: Change) {
        guard let report = reporter.withLock({ $0 }) else { return }
        switch change {
        case .online(let isOnline): report(.online(isOnline))
        case .focused(let isFocused): report(.focused(isFocused))
        case .memoryPressure(let level): report(.memoryPressure(level))
        case .failure(let error): report(.failed(error))
        }
    }

    package func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError) {
        if let startFailure { throw startFailure }
        counts.withLock { $0.starts += 1 }
        reporter.withLock { $0 = report }
    }

    package func stop() {
        counts.withLock { $0.stops += 1 }
        reporter.withLock { $0 = nil }
    }
}
