import Hummingbird
import Loft
import ServiceLifecycle

/// The devtools of a client served by the application's own server: the page and its API added to a group of
/// the application's router, behind the application's middleware (`LoftDevtools.mount(on:at:token:)`).
///
/// ```swift
/// let router = Router()
/// router.add(middleware: LogRequestsMiddleware(.info))
/// let devtools = LoftDevtools.mount(on: client, at: router.group("devtools"), token: secret)
/// let app = Application(router: router)
/// let services = ServiceGroup(configuration: .init(services: [app, devtools], logger: logger))
/// // The page: http://<host>/devtools/?token=<secret>
/// ```
///
/// **Behavior**
/// - The page is served at the group's path with or without a trailing slash; its API lives beside it.
/// - With a token, every request must carry it (`?token=` or `X-Loft-Token`), whatever the application's
///   middleware let through; others get 401.
/// - A `Service`: in the application's service group it closes the open pages' event streams on graceful
///   shutdown, so that the server's wait for its requests to finish does not wait for them.
/// - The client's events are listened to only while a page is open, as for `LoftDevtools`.
public final class LoftDevtoolsRoutes: Service, Sendable {
    /// The secret every request must carry; nil when none is asked.
    public let token: String?
    private let recorder: DevtoolsRecorder

    init(token: String?, recorder: DevtoolsRecorder) {
        self.token = token
        self.recorder = recorder
    }

    /// Whether an open page is being fed (the client's events are listened to).
    public var isWatched: Bool {
        recorder.isListening
    }

    /// The recorder, for tests that watch as an open page does.
    var recorderForTests: DevtoolsRecorder { recorder }

    /// Ends the open pages' event streams (they reconnect while the server still serves).
    public func closeStreams() {
        recorder.closeAll()
    }

    /// Waits for the service group's graceful shutdown, then ends the open pages' event streams.
    public func run() async throws {
        try? await gracefulShutdown()
        recorder.closeAll()
    }
}

extension LoftDevtools {
    /// Adds the devtools of `client` to `routes`, a group (or the whole) of the application's router: the
    /// application's server serves them, behind its middleware, on its port.
    ///
    /// - Parameters:
    ///   - client: the client to show and act on.
    ///   - routes: where the page and its API go, such as `router.group("devtools")`.
    ///   - token: the secret every request must carry. Required as a parameter on purpose: an application's
    ///     port is usually reachable from other machines, and the page shows the cache's data and changes it;
    ///     pass nil only behind middleware that already admits only whom it should.
    ///   - historyPerKey: ended fetches kept per key (default 50).
    ///   - timelineLength: ended fetches kept for the timeline (default 500).
    /// - Returns: the mounted routes, a `Service` to add to the application's service group.
    @discardableResult
    public static func mount<Routes: RouterMethods>(
        on client: QueryClient, at routes: Routes, token: String?, historyPerKey: Int = 50,
        timelineLength: Int = 500
    ) -> LoftDevtoolsRoutes {
        let recorder = DevtoolsRecorder(client: client, historyPerKey: historyPerKey, timelineLength: timelineLength)
        DevtoolsRoutes(client: client, recorder: recorder, token: token).add(to: routes)
        return LoftDevtoolsRoutes(token: token, recorder: recorder)
    }
}

/// The devtools served on their own port stop with the application: in its service group, they are unmounted
/// on graceful shutdown (`LoftDevtools.unmount()`).
extension LoftDevtools: Service {
    /// Waits for the service group's graceful shutdown (or cancellation), then unmounts.
    public func run() async throws {
        try? await gracefulShutdown()
        await unmount()
    }
}
