import Loft
import ServiceLifecycle

/// A `QueryClient` as a service of the application's `ServiceGroup`: on graceful shutdown it stops taking new
/// work from its triggers and writes what it queued for its persistent cache (`QueryClient.flush()`), and
/// returns once that is on disk, so the process exits with nothing of the client's lost.
///
/// ```swift
/// let client = QueryClient(cache: cache, memoryBudget: .entries(10_000))
/// let services = ServiceGroup(
///     configuration: .init(
///         services: [.init(service: QueryClientService(client: client)), .init(service: app)],
///         gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await services.run()
/// ```
///
/// **Behavior**
/// - Does nothing until the group shuts down (or its task is cancelled): the client serves as usual.
/// - On graceful shutdown: flushes the client's writer (every value queued for its persistent cache is
///   written, or has failed, which the client's `events` report), then returns.
/// - A service group stops its services in the reverse order of its list: put this service before the
///   HTTP server, so that the requests in flight finish (and queue their writes) before the flush.
/// - Cancelled (the group's hard stop), it still flushes what is queued before it returns.
public struct QueryClientService: Service {
    /// The client flushed on shutdown.
    public let client: QueryClient

    /// Makes the service of `client`.
    public init(client: QueryClient) {
        self.client = client
    }

    /// Waits for the group's graceful shutdown, then flushes the client.
    public func run() async throws {
        try? await gracefulShutdown()
        await client.flush()
    }
}
