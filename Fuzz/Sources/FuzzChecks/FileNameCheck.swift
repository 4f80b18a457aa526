import Foundation
import Loft
import Signals
import Synchronization

/// Any key (from JSON, or built from the bytes) saved in a cache: its record is one regular file directly in
/// the cache's folder, nothing is written outside it, the value reads back, also after a restart, and a
/// second key that extends the first never takes its file.
public enum FileNameCheck {
    private static let runs = Atomic<Int>(0)

    /// Saves two values under the key `bytes` give (as JSON, or built from them) and checks where and how they
    /// were written and read.
    public static func run(_ bytes: Data) {
        var maker = KeyMaker(bytes)
        let key = (try? JSONDecoder().decode(QueryKey.self, from: bytes)) ?? maker.key()
        QueryKeyCheck.check(key)
        let other = QueryKey(parts: key.parts + ["other"])
        let run = runs.add(1, ordering: .relaxed).newValue
        let root = Workspace.root.appendingPathComponent("names-\(run)")
        let directory = root.appendingPathComponent("cache")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = JSONFileQueryCache(directory: directory, durability: .processCrashSafe)
        do {
            try cache.save(
                "first", for: key, savedAt: SchedulerInstant(secondsSinceEpoch: 1_800_000_000), expiresAt: nil)
        } catch {
            violated("saving \(key) failed: \(error)")
        }
        guard Workspace.names(in: root) == ["cache"] else { violated("\(key) wrote \(Workspace.names(in: root))") }
        let names = Workspace.names(in: directory)
        guard names.count == 1, let name = names.first, !name.contains("/"), name != ".", name != ".." else {
            violated("\(key) was saved as \(names)")
        }
        var isDirectory: ObjCBool = false
        guard
            FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory),
            !isDirectory.boolValue
        else { violated("\(key)'s record \(name) is not a file") }
        do {
            try cache.save(
                "second", for: other, savedAt: SchedulerInstant(secondsSinceEpoch: 1_800_000_000), expiresAt: nil)
        } catch {
            violated("saving \(other) failed: \(error)")
        }
        expect(cache, key, "first")
        expect(cache, other, "second")
        let restarted = JSONFileQueryCache(directory: directory, durability: .processCrashSafe)
        expect(restarted, key, "first")
        expect(restarted, other, "second")
    }

    private static func expect(_ cache: JSONFileQueryCache, _ key: QueryKey, _ value: String) {
        let read: String?
        do {
            read = try cache.get(String.self, for: key)?.value
        } catch {
            violated("reading \(key) failed: \(error)")
        }
        guard read == value else { violated("\(key) read \(read ?? "nothing"), saved \(value)") }
    }
}
