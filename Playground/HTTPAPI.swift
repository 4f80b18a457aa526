import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real service over HTTP. It reads JSON files laid out as `users.json`, `users/{id}/repos.json` and
/// `time.json`, so any static file server can play it (CI serves `Playground/Fixtures` with Python's
/// `http.server`). Creating a user is a `POST /users.json`, which a static server refuses: the tour shows that
/// failure as it is.
final class HTTPAPI: TourAPI {
    let base: URL
    private let session: URLSession
    private let counter = RequestCounter()

    var name: String { "the HTTP API at \(base.absoluteString)" }

    init(base: URL) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 5
        session = URLSession(configuration: configuration)
    }

    func users() async throws -> [User] {
        try await get("users.json")
    }

    func repos(of userID: Int) async throws -> [Repo] {
        try await get("users/\(userID)/repos.json")
    }

    func createUser(named name: String) async throws -> User {
        var request = URLRequest(url: base.appendingPathComponent("users.json"))
        request.httpMethod = "POST"
        request.httpBody = try JSONEncoder().encode(["name": name])
        return try await send(request)
    }

    func flaky() async throws -> [User] {
        try await get("flaky.json")
    }

    func serverTime() async throws -> Int {
        try await get("time.json")
    }

    func requestCount() async -> Int {
        counter.value
    }

    /// Checks that the server answers at all, for a clear message when it does not.
    func checkReachable() async throws {
        _ = try await session.data(from: base.appendingPathComponent("users.json"))
    }

    private func get<T: Decodable>(_ path: String) async throws -> T {
        try await send(URLRequest(url: base.appendingPathComponent(path)))
    }

    private func send<T: Decodable>(_ request: URLRequest) async throws -> T {
        counter.increment()
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw HTTPFailure(status: status, url: request.url?.absoluteString ?? "?")
        }
        return try JSONDecoder().decode(T.self, from: data)
    }
}

/// A thread-safe counter of requests sent.
final class RequestCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }

    func increment() {
        count.add(1, ordering: .relaxed)
    }
}
