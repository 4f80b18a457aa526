import Foundation
import Loft
import LoftServiceLifecycle
import Logging
import ServiceLifecycle
import Testing

/// The README's example, compiled and run: the check in CI fails when a ```swift block of the README is not,
/// line for line, in this file.
@Suite(.timeLimit(.minutes(1))) struct ReadmeExamplesTests {
    /// Stands for the application's HTTP server: serves until the group shuts down.
    struct Server: Service {
        func run() async throws {
            try? await gracefulShutdown()
        }
    }

    @Test("the README's use: the client a service of the group, flushed when it stops")
    func use() async throws {
        let cache = InMemoryQueryCache()
        let logger = Logger(label: "readme")
        let app = Server()

        let client = QueryClient(cache: cache, memoryBudget: .entries(10_000))
        let services = ServiceGroup(
            configuration: .init(
                services: [.init(service: QueryClientService(client: client)), .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))

        let running = Task { try await services.run() }
        client.setQueryData(1, for: "saved")
        await services.triggerGracefulShutdown()
        try await running.value
        #expect(try cache.get(Int.self, for: "saved")?.value == 1)
    }
}
