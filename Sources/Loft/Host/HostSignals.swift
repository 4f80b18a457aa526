/// What a client follows of its host: connectivity, focus and memory pressure, each from a live source of the
/// platform, read as the host reports changes (no polling). `QueryClient.follow(_:)` feeds them to the client.
///
/// ```swift
/// let client = QueryClient(memoryBudget: .entries(10_000))
/// client.follow(.host)          // online, focus and memory pressure, as the host says
/// client.stopFollowing()        // at shutdown
/// ```
///
/// **Behavior** (`.host`)
/// - **Connectivity.** Linux: an rtnetlink socket that hears link and address changes; after each, the client
///   is online when an interface other than loopback is up and running with an address
///   (`HostConnectivity.isOnline()`). Apple platforms: `NWPathMonitor` (online when its path is satisfied).
///   Neither can tell that the internet is reachable, only that the machine is certainly offline.
/// - **Focus.** Apple platforms: the app's activation and deactivation notifications (UIKit, AppKit,
///   WatchKit, as available). Linux: none (a tool or a service has no focus; the client stays as told).
/// - **Memory pressure.** Linux: pressure-stall triggers on the cgroup's `memory.pressure` when present, else
///   on `/proc/pressure/memory` (a warning when some task stalled on memory 100 ms in 2 s, critical when
///   every task did). Apple platforms: the dispatch memory-pressure source. A warning trims the entries nobody
///   observes to half the memory budget (half what the client holds, without one); critical drops every
///   entry nobody observes. Each dropped entry is an `evicted` event with `.memoryPressure`, and each trim a
///   `hostSignal(.memoryPressure(_:evicted:))` event.
/// - A source that cannot start, or fails later, is a `hostSignal(.sourceFailed(_:error:))` event; the other
///   sources go on. Nothing crashes.
///
/// The Apple sources are written against the platforms' documented APIs; this repository's CI compiles and
/// tests the Linux sources only.
public struct HostSignals: Sendable {
    let sources: @Sendable () -> [any HostSignalSource]

    package init(sources: @escaping @Sendable () -> [any HostSignalSource]) {
        self.sources = sources
    }

    /// This host's connectivity, focus and memory pressure (see the type's Behavior list).
    public static var host: HostSignals {
        HostSignals(sources: platformSources)
    }
}

/// How short of memory the host is (`QueryClient.follow(_:)`).
public enum MemoryPressure: String, Sendable, Hashable, CaseIterable {
    /// Memory is short: the client trims what nobody observes to half its budget.
    case warning
    /// Memory is critically short: the client drops everything nobody observes.
    case critical
}

/// What a followed host signal did to the client (`QueryCacheEvent.hostSignal`).
public enum HostSignalEvent: Sendable, CustomStringConvertible {
    /// The host's connectivity changed; the client was told (`setOnline(_:)`).
    case online(Bool)
    /// The app's activation changed; the client was told (`setFocused(_:)`).
    case focused(Bool)
    /// The host reported memory pressure; `evicted` entries nobody observed were dropped.
    case memoryPressure(MemoryPressure, evicted: Int)
    /// A source (`"connectivity"`, `"focus"` or `"memory pressure"`) could not start, or stopped with `error`;
    /// the client keeps what it was last told, and the other sources go on.
    case sourceFailed(String, error: HostSignalError)

    /// The event as the devtools and logs show it.
    public var description: String {
        switch self {
        case .online(let isOnline): "online \(isOnline)"
        case .focused(let isFocused): "focused \(isFocused)"
        case .memoryPressure(let level, let evicted): "memory pressure \(level.rawValue), \(evicted) evicted"
        case .sourceFailed(let source, let error): "\(source) source failed: \(error)"
        }
    }
}

/// Why a host signal source failed.
public struct HostSignalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed (`"socket"`, `"bind"`, `"open /proc/pressure/memory"`…).
    public let operation: String
    /// The system's error number.
    public let code: Int32

    /// Makes an error: `operation` failed with the system's error number `code`.
    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// What failed and the error number.
    public var description: String {
        "\(operation) failed (errno \(code))"
    }
}

/// A live source of one host signal: it reports changes from its own thread or queue until stopped.
package protocol HostSignalSource: Sendable {
    /// The source's name in `HostSignalEvent.sourceFailed` (`"connectivity"`, `"focus"`, `"memory pressure"`).
    var name: String { get }
    /// Starts reporting to `report`; reports the current state first when the source can tell it.
    ///
    /// - Throws: `HostSignalError` when the source cannot start.
    func start(_ report: @escaping @Sendable (HostSignalChange) -> Void) throws(HostSignalError)
    /// Stops reporting; returns once no report runs or will run.
    func stop()
}

/// What a source reports.
package enum HostSignalChange: Sendable, Equatable {
    case online(Bool)
    case focused(Bool)
    case memoryPressure(MemoryPressure)
    /// The source stopped on its own, with this error.
    case failed(HostSignalError)
}

extension Locked {
    /// Takes the value out, leaving nil: what stopping a source (or a follower) does with what it started.
    func take<Value>() -> Value? where State == Value? {
        withLock { state in
            defer { state = nil }
            return state
        }
    }
}
