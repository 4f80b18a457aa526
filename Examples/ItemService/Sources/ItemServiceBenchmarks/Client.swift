import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The benchmark's own HTTP client, for what wrk cannot do: thousands of requests at once, and reading each
/// answer.
struct BenchmarkClient: Sendable {
    let http: HTTPClient

    init(connections: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The status and the body of `GET url`.
    func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    /// Sends `POST url` or `PUT url` with `body`.
    func send(_ method: HTTPMethod, _ url: String, body: String = "") async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await http.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    func shutdown() async {
        try? await http.shutdown()
    }
}
