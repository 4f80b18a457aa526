import Foundation
import Hummingbird
import Loft

/// The devtools' HTTP routes: the page, a page of the cache, a key's detail, the live events, and the actions.
/// Every route checks the token when there is one (`?token=` or the `X-Loft-Token` header).
struct DevtoolsRoutes: Sendable {
    let client: QueryClient
    let recorder: DevtoolsRecorder
    let token: String?

    /// The most keys a page of the list holds.
    static let pageLimit = 200

    /// The page: one self-contained HTML file shipped as the package's resource.
    static let page: String = {
        guard let url = Bundle.module.url(forResource: "devtools", withExtension: "html"),
            let html = try? String(contentsOf: url, encoding: .utf8)
        else { return "<!doctype html><title>Loft devtools</title><p>The page's file is missing from the build." }
        return html
    }()

    /// A router of its own holding the routes (the devtools on their own port).
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        add(to: router)
        return router
    }

    /// Adds the routes to `router`, a router or a group of the application's, whatever its request context.
    func add<Routes: RouterMethods>(to router: Routes) {
        router.get("/") { request, _ in authorized(request) { respond(Self.page, type: "text/html; charset=utf-8") } }
        router.get("/api/state") { request, _ in authorized(request) { respond(state(request), type: json) } }
        router.get("/api/entry") { request, _ in
            authorized(request) {
                guard let key = key(request.uri.queryParameters.get("key")),
                    let entry = CacheInspector(client: client).entry(for: key)
                else { return Response(status: .notFound) }
                return respond(detail(key, entry), type: json)
            }
        }
        router.get("/api/events") { request, _ in authorized(request) { events() } }
        router.post("/api/action") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 16)
            return authorized(request) { act(on: Data(buffer: body)) }
        }
        router.post("/api/environment") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 16)
            return authorized(request) { environment(Data(buffer: body)) }
        }
    }

    private var json: String { "application/json" }

    // MARK: - Reading

    private func state(_ request: Request) -> String {
        let parameters = request.uri.queryParameters
        let offset = max(0, parameters.get("offset").flatMap { Int($0) } ?? 0)
        let limit = min(Self.pageLimit, max(1, parameters.get("limit").flatMap { Int($0) } ?? Self.pageLimit))
        let filter = parameters.get("filter").map { $0.lowercased() } ?? ""
        let now = client.scheduler.now
        var entries = CacheInspector(client: client).entries()
        if !filter.isEmpty { entries = entries.filter { $0.info.key.description.lowercased().contains(filter) } }
        let page = entries.dropFirst(offset).prefix(limit).map { DevtoolsModels.row($0, json: $0.dataJSON, now: now) }
        let mutations = client.mutations().suffix(100).map { DevtoolsModels.mutation($0, now: now) }
        return DevtoolsModels.encode(
            DevtoolsModels.StatePage(
                now: DevtoolsRecorder.seconds(now), total: entries.count, offset: offset, entries: Array(page),
                mutations: Array(mutations), online: client.isOnline, focused: client.isFocused,
                timeline: recorder.timeline(), isRecording: recorder.isListening,
                memory: DevtoolsModels.Memory(
                    used: client.memoryUsage, limit: client.memoryBudget?.limit, evicted: recorder.evictions)))
    }

    private func detail(_ key: QueryKey, _ entry: CacheInspector.Entry) -> String {
        let data = entry.dataJSON
        return DevtoolsModels.encode(
            DevtoolsModels.Detail(
                entry: DevtoolsModels.row(entry, json: data, now: client.scheduler.now),
                data: data ?? entry.data.map { "\($0)" }, staleTime: entry.staleTime.map { "\($0)" },
                history: recorder.history(of: key)))
    }

    /// Server-sent events: each client event as one `data:` line of JSON, from now on, while the page is open.
    private func events() -> Response {
        let stream = recorder.watch()
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            for await line in stream { try await writer.write(ByteBuffer(string: "data: \(line)\n\n")) }
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: - Actions

    private struct Action: Decodable {
        let action: String
        let key: String
    }

    private struct Environment: Decodable {
        let online: Bool?
        let focused: Bool?
    }

    /// Performs the client's own operation on one key: `refetch`, `invalidate`, `reset` or `remove`.
    private func act(on body: Data) -> Response {
        guard let action = try? JSONDecoder().decode(Action.self, from: body), let key = key(action.key) else {
            return Response(status: .badRequest)
        }
        switch action.action {
        case "refetch": client.refetchQueries(key, exact: true)
        case "invalidate": client.invalidateQueries(key, exact: true)
        case "reset": client.resetQueries(key, exact: true)
        case "remove": client.removeQueries(key, exact: true)
        default: return Response(status: .badRequest)
        }
        return Response(status: .noContent)
    }

    private func environment(_ body: Data) -> Response {
        guard let change = try? JSONDecoder().decode(Environment.self, from: body) else {
            return Response(status: .badRequest)
        }
        if let online = change.online { client.setOnline(online) }
        if let focused = change.focused { client.setFocused(focused) }
        return Response(status: .noContent)
    }

    // MARK: - Helpers

    private func key(_ json: String?) -> QueryKey? {
        json.flatMap { try? JSONDecoder().decode(QueryKey.self, from: Data($0.utf8)) }
    }

    private func respond(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `response()` when the request carries the token (or none is needed); 401 otherwise.
    private func authorized(_ request: Request, _ response: () -> Response) -> Response {
        guard let token else { return response() }
        let header = request.headers.first { $0.name.rawName.lowercased() == "x-loft-token" }?.value
        let given: String? = request.uri.queryParameters.get("token").map { String($0) } ?? header
        guard given == token else {
            return Response(status: .unauthorized)
        }
        return response()
    }
}
