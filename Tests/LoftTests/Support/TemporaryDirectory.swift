import Foundation

/// A fresh folder under the system's temporary directory, deleted when the test releases it.
final class TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("loft-tests-\(UUID().uuidString)")
    }

    var path: String { url.path }

    /// The names in the folder (none when it does not exist).
    var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func write(_ text: String, to name: String) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    func contents(of name: String) -> String? {
        FileManager.default.contents(atPath: url.appendingPathComponent(name).path).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
