import Foundation
import Loft

/// A user of the demo service.
struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// A repository of a user.
struct Repo: Codable, Sendable, Equatable {
    let name: String
    let stars: Int
}

/// What the tour needs from a server: the built-in demo API, or a real one over HTTP (`--api URL`).
protocol TourAPI: Sendable {
    /// A one-line description for the tour's header.
    var name: String { get }
    func users() async throws -> [User]
    func repos(of userID: Int) async throws -> [Repo]
    func createUser(named name: String) async throws -> User
    /// An endpoint that fails, to show retries.
    func flaky() async throws -> [User]
    /// A number that changes over time, to show polling.
    func serverTime() async throws -> Int
    /// How many requests the server has received.
    func requestCount() async -> Int
}

/// An error with an HTTP status, so that retries can skip client errors.
struct HTTPFailure: Error, HTTPStatusError, CustomStringConvertible {
    let status: Int
    let url: String
    var httpStatusCode: Int? { status }
    var description: String { "HTTP \(status) from \(url)" }
}
