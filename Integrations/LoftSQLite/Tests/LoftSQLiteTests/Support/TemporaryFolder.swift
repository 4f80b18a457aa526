import Foundation

/// A folder of its own for a test, removed when the test ends.
final class TemporaryFolder: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("loft-sqlite-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The database file the tests use.
    var database: URL { url.appendingPathComponent("cache.sqlite") }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// What the tests store.
struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}
