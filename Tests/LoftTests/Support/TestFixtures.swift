import LoftTesting
import Testing

@testable import Loft

extension TestQueryClient {
    /// How many queries and consumers observe the entry of `key`.
    func observerCount(_ key: QueryKey) -> Int {
        client.existingEntry(for: key)?.snapshot.observerCount ?? 0
    }
}

enum APIError: Error, Equatable, HTTPStatusError {
    case offline
    case status(Int)

    var httpStatusCode: Int? {
        if case .status(let code) = self { return code }
        return nil
    }
}

struct User: Sendable, Equatable, Codable {
    let id: Int
    var name: String
}
