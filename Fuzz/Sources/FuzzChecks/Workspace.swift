import Foundation

/// A folder of this process for the records a check writes: under `LOFT_FUZZ_WORKSPACE` when set (the run
/// script gives each run its own and removes it), else in memory (`/dev/shm`) when there is one, so a run
/// measures the parsers, not the disk.
enum Workspace {
    static let root: URL = {
        let environment = ProcessInfo.processInfo.environment
        let memory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let base = environment["LOFT_FUZZ_WORKSPACE"] ?? memory
        let url = URL(fileURLWithPath: base).appendingPathComponent(
            "loft-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: url)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            violated("cannot make the workspace \(url.path): \(error)")
        }
        return url
    }()

    /// The names in `url`, sorted.
    static func names(in url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }
}
