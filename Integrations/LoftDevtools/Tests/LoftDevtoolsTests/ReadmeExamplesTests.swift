import Foundation
import Hummingbird
import Loft
import LoftDevtools
import Logging
import ServiceLifecycle
import Testing

/// The README's example, compiled and run: the check in CI fails when a ```swift block of the README is not,
/// line for line, in this file.
@Suite struct ReadmeExamplesTests {
    @Test("the README's use: mounted on a client, its address printed, unmounted")
    func use() async throws {
        let client = QueryClient()

        let devtools = try await LoftDevtools.mount(on: client)
        print("devtools: \(devtools.url)")
        // ... when the client is done with:
        await devtools.unmount()

        #expect(devtools.url.host == "127.0.0.1" && devtools.url.port != 0)
    }

    @Test("the README's server use: mounted on the application's router, a service of its group")
    func onTheRouter() async throws {
        let client = QueryClient()
        let logger = Logger(label: "readme")

        let router = Router()
        let routes = LoftDevtools.mount(on: client, at: router.group("devtools"), token: "s3cret")
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let services = ServiceGroup(
            configuration: .init(services: [app, routes], gracefulShutdownSignals: [.sigterm], logger: logger))
        // The page: http://HOST:PORT/devtools/?token=s3cret

        let running = Task { try await services.run() }
        await services.triggerGracefulShutdown()
        try await running.value
        #expect(routes.token == "s3cret")
    }
}
