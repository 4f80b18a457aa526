import AsyncHTTPClient
import Foundation
import NIOCore

/// The upstream over HTTP (AsyncHTTPClient): `GET /items/:id` and `PUT /items/:id`, each with a time limit.
public struct HTTPUpstream: ItemUpstream {
    /// The upstream's address.
    public let baseURL: String
    /// How long one request may take.
    public let timeout: Duration
    private let http: HTTPClient

    /// - Parameters:
    ///   - baseURL: the upstream's address, such as `http://127.0.0.1:8081`.
    ///   - timeout: how long one request may take before it fails with `UpstreamError.timedOut`.
    ///   - http: the HTTP client (default: the process's shared one).
    public init(baseURL: String, timeout: Duration = .seconds(1), http: HTTPClient = .shared) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timeout = timeout
        self.http = http
    }

    /// `GET /items/:id`.
    public func item(_ id: Int) async throws -> Item {
        try await send(HTTPClientRequest(url: "\(baseURL)/items/\(id)"))
    }

    /// `PUT /items/:id` with the new name.
    public func update(_ change: ItemChange) async throws -> Item {
        var request = HTTPClientRequest(url: "\(baseURL)/items/\(change.id)")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(change)))
        return try await send(request)
    }

    private func send(_ request: HTTPClientRequest) async throws -> Item {
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: .nanoseconds(timeout.nanosecondsValue))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw UpstreamError.timedOut
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw UpstreamError.unreachable("\(error)")
        }
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200 else { throw UpstreamError.status(Int(response.status.code)) }
        do {
            return try JSONDecoder().decode(Item.self, from: Data(buffer: body))
        } catch {
            throw UpstreamError.unreachable("its answer is not an item: \(error)")
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanosecondsValue: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
