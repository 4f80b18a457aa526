import Foundation
import Loft
import Signals

/// A record file with any content, read by `JSONFileQueryCache.get`: the read returns a value, nil, or a
/// `CacheError`, never crashes or hangs; and a value comes back only from a record in this version's format
/// that names the key it was read for.
public enum CacheRecordCheck {
    /// The value type records are read as.
    struct Payload: Codable, Equatable {
        var name: String
        var count: Int
        var tags: [String]?
    }

    /// What a record must say for its value to be returned.
    struct Expected: Decodable {
        var format: String
        var key: QueryKey
        var value: Payload
    }

    static let key = QueryKey("fuzz", "record", 1)

    /// The cache folder and the file name this version gives `key`, learnt from one save.
    static let record: (directory: URL, file: URL) = {
        let directory = Workspace.root.appendingPathComponent("records")
        let cache = JSONFileQueryCache(directory: directory, durability: .processCrashSafe)
        do {
            try cache.save(
                Payload(name: "seed", count: 1, tags: nil), for: key,
                savedAt: SchedulerInstant(secondsSinceEpoch: 1_800_000_000), expiresAt: nil)
        } catch {
            violated("the first save failed: \(error)")
        }
        let names = Workspace.names(in: directory)
        guard names.count == 1, let name = names.first else { violated("one save made \(names)") }
        return (directory, directory.appendingPathComponent(name))
    }()

    /// Writes `bytes` as the key's record and reads it back, as a new cache (a restart) would.
    public static func run(_ bytes: Data) {
        do {
            try bytes.write(to: record.file)
        } catch {
            violated("cannot write the record: \(error)")
        }
        let cache = JSONFileQueryCache(directory: record.directory, durability: .processCrashSafe)
        _ = cache.savedAt(forKey: key)
        _ = try? cache.get(String.self, for: key)
        let read: CachedValue<Payload>?
        do {
            read = try cache.get(Payload.self, for: key)
        } catch {
            return  // a typed error is a right answer for a record that is not this key's
        }
        guard let read else { return }
        guard let expected = try? JSONDecoder().decode(Expected.self, from: bytes) else {
            violated("a value was read from a record that does not decode: \(read.value)")
        }
        guard expected.format == "loft-cache/1" else { violated("a value was read from format \(expected.format)") }
        guard expected.key == key else { violated("the record of \(expected.key) was read as \(key)'s") }
        guard expected.value == read.value else { violated("read \(read.value), the record holds \(expected.value)") }
    }
}
