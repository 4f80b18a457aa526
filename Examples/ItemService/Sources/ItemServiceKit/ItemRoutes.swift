import Foundation
import Hummingbird

/// The service's routes over a store: `GET /items/:id` (the item as JSON; `X-Cache: stale` when the upstream
/// could not give a fresher one; 503 when it fails and nothing is cached) and `PUT /items/:id` (a JSON body
/// `{"name": …}`; the renamed item).
public enum ItemRoutes {
    /// Adds the item routes over `store` to `router`.
    public static func add<Context: RequestContext>(to router: Router<Context>, store: any ItemStore) {
        router.get("items/:id") { _, context -> Response in
            let id = try context.parameters.require("id", as: Int.self)
            do {
                let (item, isStale) = try await store.item(id)
                return try json(item, stale: isStale)
            } catch {
                return text("\(error)\n", status: .serviceUnavailable)
            }
        }
        router.put("items/:id") { request, context -> Response in
            let id = try context.parameters.require("id", as: Int.self)
            let rename = try await request.decode(as: Rename.self, context: context)
            do {
                return try json(try await store.update(ItemChange(id: id, name: rename.name)), stale: false)
            } catch {
                return text("\(error)\n", status: .badGateway)
            }
        }
    }

    /// The body of `PUT /items/:id`.
    struct Rename: Decodable {
        let name: String
    }

    static func json(_ item: Item, stale: Bool) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if stale { headers[.init("X-Cache")!] = "stale" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = ByteBuffer(bytes: try encoder.encode(item))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
