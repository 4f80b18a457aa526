import Foundation
import Hummingbird

/// The service's routes over a store: `GET /items/:id` (the item as JSON; 503 when the upstream fails and
/// nothing is cached) and `PUT /items/:id` (a JSON body `{"name": …}`; the renamed item; 502 when the upstream
/// fails).
public enum ItemRoutes {
    /// Adds the item routes over `store` to `router`.
    public static func add<Context: RequestContext>(to router: Router<Context>, store: any ItemStore) {
        router.get("items/:id") { _, context -> Response in
            let id = try context.parameters.require("id", as: Int.self)
            do {
                return try json(try await store.item(id))
            } catch {
                return text("\(error)\n", status: .serviceUnavailable)
            }
        }
        router.put("items/:id") { request, context -> Response in
            let id = try context.parameters.require("id", as: Int.self)
            let rename = try await request.decode(as: Rename.self, context: context)
            do {
                return try json(try await store.update(ItemChange(id: id, name: rename.name)))
            } catch {
                return text("\(error)\n", status: .badGateway)
            }
        }
    }

    /// The body of `PUT /items/:id`.
    struct Rename: Decodable {
        let name: String
    }

    static func json(_ item: Item) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
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
