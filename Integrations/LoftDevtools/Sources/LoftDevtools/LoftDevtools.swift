import Foundation
import Hummingbird
import Loft
import Logging
import ServiceLifecycle

/// A live page of a client's cache in the browser: its keys (status, fetching or paused, observers, when they
/// turn stale and are collected, data size), each key's data, staleness and history of fetches with their
/// reasons, the mutation calls, a timeline of fetches, and buttons that perform the client's own operations
/// (refetch, invalidate, reset, remove; online or offline; focused or not).
///
/// ```swift
/// let devtools = try await LoftDevtools.mount(on: client)
/// print("devtools: \(devtools.url)")
/// // ...
/// await devtools.unmount()
/// ```
///
/// **Behavior**
/// - Served by this process on 127.0.0.1 by default, on a free port; the page is one self-contained file (no
///   CDN, no request leaves the machine). Another address needs a token, which every request must carry.
/// - The page lists the cache a page at a time (200 keys, filtered by the server), so 10,000 keys stay quick.
/// - Live: the client's events reach the page as they happen (server-sent events), and the list refreshes on
///   them. History and the timeline are recorded while a page is open; with none open the client's events are
///   not even made, so the devtools cost the client nothing (the add-on's benchmarks measure it).
/// - Memory is bounded: `historyPerKey` fetches per key (a key's history goes with its entry), `timelineLength`
///   for all keys.
public final class LoftDevtools: Sendable {
    /// The page's address (with the token, when there is one).
    public let url: URL
    /// Where it is served and what it keeps.
    public let options: Options

    private let recorder: DevtoolsRecorder
    private let group: ServiceGroup
    private let server: Task<Void, Never>

    private init(
        url: URL, options: Options, recorder: DevtoolsRecorder, group: ServiceGroup, server: Task<Void, Never>
    ) {
        self.url = url
        self.options = options
        self.recorder = recorder
        self.group = group
        self.server = server
    }

    /// Serves the devtools of `client` and returns once the page can be opened at `url`.
    ///
    /// - Parameters:
    ///   - client: the client to show and act on.
    ///   - options: address, port, token and history (default: 127.0.0.1 on a free port, no token).
    /// - Throws: `DevtoolsError.tokenRequired` for a non-loopback host without a token, `.cannotServe` when
    ///   the address cannot be bound.
    public static func mount(on client: QueryClient, options: Options = Options()) async throws(DevtoolsError)
        -> LoftDevtools
    {
        if !options.isLoopback, options.token?.isEmpty ?? true { throw .tokenRequired(host: options.host) }
        let recorder = DevtoolsRecorder(
            client: client, historyPerKey: options.historyPerKey, timelineLength: options.timelineLength)
        let routes = DevtoolsRoutes(client: client, recorder: recorder, token: options.token)
        let started = Locked<CheckedContinuation<Int, any Error>?>(nil)
        var logger = Logger(label: "loft.devtools")
        logger.logLevel = .error
        let app = Application(
            router: routes.router(), configuration: .init(address: .hostname(options.host, port: options.port)),
            onServerRunning: { channel in
                let waiting = started.withLock { waiting in
                    defer { waiting = nil }
                    return waiting
                }
                waiting?.resume(returning: channel.localAddress?.port ?? options.port)
            }, logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let serverTask = Locked<Task<Void, Never>?>(nil)
        let port: Int
        do {
            port = try await withCheckedThrowingContinuation { continuation in
                started.withLock { $0 = continuation }
                let task = Task {
                    do {
                        try await group.run()
                    } catch {
                        // A failure to bind ends the run before the server runs: the mount throws it.
                        let waiting = started.withLock { waiting in
                            defer { waiting = nil }
                            return waiting
                        }
                        waiting?.resume(throwing: error)
                    }
                }
                serverTask.withLock { $0 = task }
            }
        } catch {
            throw .cannotServe(host: options.host, port: options.port, reason: "\(error)")
        }
        guard let server = serverTask.withLock({ $0 }) else {
            throw .cannotServe(host: options.host, port: options.port, reason: "the server did not start")
        }
        var components = URLComponents()
        components.scheme = "http"
        components.host = options.host.contains(":") ? "[\(options.host)]" : options.host
        components.port = port
        components.path = "/"
        if let token = options.token { components.queryItems = [URLQueryItem(name: "token", value: token)] }
        let url = components.url ?? URL(fileURLWithPath: "/")
        return LoftDevtools(url: url, options: options, recorder: recorder, group: group, server: server)
    }

    /// Whether an open page is being fed (the client's events are listened to).
    public var isWatched: Bool {
        recorder.isListening
    }

    /// Listens as an open page does, until the task is cancelled (for tests).
    func watchForTests() -> Task<Void, Never> {
        let stream = recorder.watch()
        return Task { for await _ in stream {} }
    }

    /// Stops serving: open pages lose their connection; returns once the server has stopped.
    public func unmount() async {
        recorder.closeAll()
        await group.triggerGracefulShutdown()
        await server.value
    }
}
