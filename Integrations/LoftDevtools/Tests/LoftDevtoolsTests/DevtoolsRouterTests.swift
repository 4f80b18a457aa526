import Foundation
import Hummingbird
import HummingbirdTesting
import Loft
import LoftTesting
import Logging
import ServiceLifecycle
import Testing

@testable import LoftDevtools

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The devtools on the application's own router (a group, behind its middleware) and as services of the
/// application's service group.
@Suite(.timeLimit(.minutes(1))) struct DevtoolsRouterTests {
    /// Marks every response it passes, so a test sees that the devtools' routes sit behind it.
    struct StampMiddleware<Context: RequestContext>: RouterMiddleware {
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            var response = try await next(request, context)
            response.headers[.init("X-Application")!] = "items"
            return response
        }
    }

    func application(_ client: QueryClient, token: String?) -> (some ApplicationProtocol, LoftDevtoolsRoutes) {
        let router = Router()
        router.add(middleware: StampMiddleware())
        router.get("/items") { _, _ in "items" }
        let devtools = LoftDevtools.mount(on: client, at: router.group("devtools"), token: token)
        return (Application(router: router), devtools)
    }

    @Test(
        "mounted on a group: the page at its path with or without a slash, its API beside it, behind the app's middleware"
    )
    func mountedOnGroup() async throws {
        let harness = TestQueryClient(memoryBudget: .entries(10))
        _ = try await harness.client.fetchQuery(["items", 1]) { 1 }
        let (app, _) = application(harness.client, token: "s3cret")
        try await app.test(.router) { client in
            for path in ["/devtools?token=s3cret", "/devtools/?token=s3cret"] {
                let page = try await client.execute(uri: path, method: .get)
                #expect(page.status == .ok)
                #expect(String(buffer: page.body).contains("<title>Loft devtools</title>"))
                #expect(page.headers[.init("X-Application")!] == "items")
            }
            let state = try await client.execute(uri: "/devtools/api/state?token=s3cret", method: .get)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: state.body)) as? [String: Any])
            let memory = try #require(json["memory"] as? [String: Any])
            #expect(memory["used"] as? Int == 1 && memory["limit"] as? Int == 10)
            let entry = try #require((json["entries"] as? [[String: Any]])?.first)
            #expect(entry["observers"] as? Int == 0 && entry["age"] != nil)
            #expect(try await client.execute(uri: "/items", method: .get).status == .ok)
        }
    }

    @Test("mounted on a group with a token: a request without it, or with another, is 401")
    func tokenOnGroup() async throws {
        let harness = TestQueryClient()
        let (app, _) = application(harness.client, token: "s3cret")
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/devtools/", method: .get).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/devtools/api/state?token=nope", method: .get).status == .unauthorized)
            let withHeader = try await client.execute(
                uri: "/devtools/api/state", method: .get, headers: [.init("X-Loft-Token")!: "s3cret"])
            #expect(withHeader.status == .ok)
        }
    }

    @Test("the routes are a service: graceful shutdown of the group ends the open pages' event streams")
    func routesStopWithTheGroup() async throws {
        let harness = TestQueryClient()
        let (_, devtools) = application(harness.client, token: nil)
        let stream = devtools.recorderForTests.watch()
        #expect(devtools.isWatched)
        let group = ServiceGroup(
            configuration: .init(services: [devtools], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        try await running.value
        for await _ in stream {}  // ends: the stream was closed
        #expect(!devtools.isWatched)
    }

    @Test("the devtools on their own port are a service: the group's graceful shutdown unmounts them")
    func ownPortStopsWithTheGroup() async throws {
        let harness = TestQueryClient()
        let devtools = try await LoftDevtools.mount(on: harness.client)
        let (_, response) = try await URLSession.shared.data(from: devtools.url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let group = ServiceGroup(
            configuration: .init(services: [devtools], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        try await running.value
        await #expect(throws: (any Error).self) { _ = try await URLSession.shared.data(from: devtools.url) }
    }
}
