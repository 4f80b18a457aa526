import Foundation
import Loft
import PostgresNIO

/// A change as it travels in a notification's payload: the change and the instance that made it (so that an
/// instance skips its own).
struct FleetMessage: Codable, Sendable {
    /// PostgreSQL's limit on a payload is 8,000 bytes; this leaves room for nothing else.
    static let maximumPayload = 7_900

    let origin: UUID
    let change: SharedChange

    /// The payload; a value too large to travel is left out (the receivers invalidate its key instead).
    ///
    /// - Throws: `CacheError.encodingFailed` when even that is too large (a key of thousands of characters).
    func payload() throws(CacheError) -> String {
        let text = Self.encode(self)
        if text.utf8.count <= Self.maximumPayload { return text }
        var lighter = change
        if case .setData(.some) = lighter.operation { lighter.operation = .setData(json: nil) }
        let light = Self.encode(FleetMessage(origin: origin, change: lighter))
        guard light.utf8.count <= Self.maximumPayload else {
            throw .encodingFailed(
                key: Self.firstKey(of: change), type: "SharedChange",
                reason: "its notification would take \(light.utf8.count) bytes, more than PostgreSQL's 8,000")
        }
        return light
    }

    /// The message a payload holds, or nil when it holds none.
    static func read(_ payload: String) -> FleetMessage? {
        try? JSONDecoder().decode(FleetMessage.self, from: Data(payload.utf8))
    }

    /// The statement that publishes `payload` on `channel`, marking first the rows of the keys an invalidation
    /// names as stale (in the same statement, so a receiver that refetches finds them stale): their
    /// `updated_at` goes to `-infinity` (no single flight takes them as fresh) and their `saved_at` to 0 (no
    /// expiring policy takes them as valid). Tags are not in the table: their rows are left as they are. The
    /// statement's commit does not wait for the disk (`synchronous_commit` off, for it alone): a server crash
    /// may lose the marks as it loses the notifications, and every instance then marks everything stale.
    static func statement(
        publishing payload: String, on channel: String, for change: SharedChange, table: String
    ) throws(CacheError) -> PostgresQuery {
        let notify: PostgresQuery = "SELECT pg_notify(\(channel), \(payload))"
        guard case .invalidate = change.operation else { return notify }
        var exact: [String] = []
        var patterns: [String] = []
        for target in change.targets {
            switch target {
            case .exact(let key): exact.append(try PostgresQueryCache.text(of: key))
            case .prefix(let prefix):
                let rows = try rows(under: prefix)
                patterns.append(rows.pattern)
                if let key = rows.key { exact.append(key) }
            case .tag, .exactTag: continue
            }
        }
        guard !exact.isEmpty || !patterns.isEmpty else { return notify }
        // The statement is planned with its values: without patterns, the `LIKE` condition folds away and
        // `key = ANY(...)` alone uses the primary key's index.
        return """
            WITH stale AS (
                UPDATE "\(unescaped: table)" SET updated_at = '-infinity', saved_at = 0
                WHERE key = ANY(\(exact)) OR (\(!patterns.isEmpty) AND key LIKE ANY(\(patterns))) RETURNING 1)
            SELECT set_config('synchronous_commit', 'off', true), pg_notify(\(channel), \(payload)),
                (SELECT count(*) FROM stale)
            """
    }

    /// The rows under `prefix`: the prefix's own row, and a `LIKE` pattern of those with more parts. The
    /// pattern is the key's JSON up to its first dictionary part (which covers dictionaries with more pairs,
    /// so it matches what precedes it: a few more rows than the prefix names may be marked stale, never fewer).
    static func rows(under prefix: QueryKey) throws(CacheError) -> (key: String?, pattern: String) {
        let literal = QueryKey(parts: Array(prefix.parts.prefix { if case .dictionary = $0 { false } else { true } }))
        guard !literal.parts.isEmpty else { return (nil, "%") }
        let text = try PostgresQueryCache.text(of: literal)
        let escaped = String(text.dropLast())  // without the closing bracket
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return (literal.parts.count == prefix.parts.count ? text : nil, escaped + ",%")
    }

    private static func encode(_ message: FleetMessage) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A message of Codable parts always encodes.
        return (try? encoder.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private static func firstKey(of change: SharedChange) -> QueryKey {
        for target in change.targets {
            switch target {
            case .exact(let key), .prefix(let key): return key
            case .tag, .exactTag: continue
            }
        }
        return QueryKey(parts: [])
    }
}
