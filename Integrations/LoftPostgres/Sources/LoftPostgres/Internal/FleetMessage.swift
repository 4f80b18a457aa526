import Foundation
import Loft
import PostgresNIO

/// A change as it travels in a notification's payload: the change and the instance that made it (so that an
/// instance skips its own).
///
/// The payload is text of one line per field, read without Foundation's JSON decoder (a change reaches every
/// instance, and that decoder took a third of a fan-out's time): keys are their JSON (as their rows' keys),
/// the value of a `setData` its JSON, last, to the end.
///
/// ```
/// loft-change 1 6F1C…-…
/// invalidate active          (or: remove, set, set-without-value)
/// filter all any any         (type, stale|fresh|any, idle|fetching|paused|any)
/// exact ["user",42]          (or: prefix, tag, exact-tag, each with a key's JSON)
/// value {"name":"Ada"}       (set only)
/// ```
struct FleetMessage: Sendable {
    /// PostgreSQL's limit on a payload is 8,000 bytes; this leaves room for nothing else.
    static let maximumPayload = 7_900
    /// The first word of a payload, and the version of its format.
    private static let header = "loft-change 1 "

    let origin: UUID
    let change: SharedChange

    /// The payload; a value too large to travel is left out (the receivers invalidate its key instead).
    ///
    /// - Throws: `CacheError.encodingFailed` when even that is too large (a key of thousands of characters), or
    ///   a key does not encode.
    func payload() throws(CacheError) -> String {
        var lines = [Self.header + origin.uuidString]
        switch change.operation {
        case .invalidate(let refetchType): lines.append("invalidate \(refetchType.rawValue)")
        case .remove: lines.append("remove")
        case .setData(let json): lines.append(json == nil ? "set-without-value" : "set")
        }
        let filter = change.filter
        lines.append(
            "filter \(filter.type.rawValue) \(filter.isStale.map { $0 ? "stale" : "fresh" } ?? "any") "
                + (filter.fetchStatus?.rawValue ?? "any"))
        for target in change.targets {
            let (word, key) =
                switch target {
                case .exact(let key): ("exact", key)
                case .prefix(let key): ("prefix", key)
                case .tag(let tag): ("tag", tag.parts)
                case .exactTag(let tag): ("exact-tag", tag.parts)
                }
            lines.append(word + " " + (try PostgresQueryCache.text(of: key)))
        }
        let light = lines.joined(separator: "\n")
        if case .setData(.some(let json)) = change.operation {
            let text = light + "\nvalue " + json
            if text.utf8.count <= Self.maximumPayload { return text }
            lines[1] = "set-without-value"
            return try Self.fitting(lines.joined(separator: "\n"), change: change)
        }
        return try Self.fitting(light, change: change)
    }

    /// The message a payload holds, or nil when it holds none.
    static func read(_ payload: String) -> FleetMessage? {
        let lines = payload.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0].hasPrefix(header),
            let origin = UUID(uuidString: String(lines[0].dropFirst(header.count))),
            let filter = filter(lines[2])
        else { return nil }
        // One target per line up to the value, which runs to the end (its JSON may hold line breaks).
        var targets: [SharedChange.Target] = []
        var value: Substring?
        var rest = lines.count > 3 ? lines[3] : nil
        while let line = rest, value == nil {
            if line.hasPrefix("value ") {
                value = line.dropFirst("value ".count)
            } else {
                let end = line.firstIndex(of: "\n")
                guard let target = target(line[..<(end ?? line.endIndex)]) else { return nil }
                targets.append(target)
                rest = end.map { line[line.index(after: $0)...] }
            }
        }
        guard let operation = operation(lines[1], value: value) else { return nil }
        return FleetMessage(origin: origin, change: SharedChange(operation, targets, filter: filter))
    }

    private static func fitting(_ payload: String, change: SharedChange) throws(CacheError) -> String {
        guard payload.utf8.count <= maximumPayload else {
            throw .encodingFailed(
                key: firstKey(of: change), type: "SharedChange",
                reason: "its notification would take \(payload.utf8.count) bytes, more than PostgreSQL's 8,000")
        }
        return payload
    }

    private static func operation(_ line: Substring, value: Substring?) -> SharedChange.Operation? {
        switch line {
        case "remove" where value == nil: return .remove
        case "set-without-value" where value == nil: return .setData(json: nil)
        case "set": return value.map { .setData(json: String($0)) }
        default:
            guard value == nil, line.hasPrefix("invalidate "),
                let refetchType = RefetchType(rawValue: String(line.dropFirst("invalidate ".count)))
            else { return nil }
            return .invalidate(refetchType)
        }
    }

    private static func filter(_ line: Substring) -> SharedChange.Filter? {
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 4, words[0] == "filter", let type = QueryTypeFilter(rawValue: String(words[1])) else {
            return nil
        }
        var filter = SharedChange.Filter(QueryFilter(type: type))
        switch words[2] {
        case "any": filter.isStale = nil
        case "stale": filter.isStale = true
        case "fresh": filter.isStale = false
        default: return nil
        }
        if words[3] != "any" {
            guard let status = FetchStatus(rawValue: String(words[3])) else { return nil }
            filter.fetchStatus = status
        }
        return filter
    }

    private static func target(_ line: Substring) -> SharedChange.Target? {
        guard let space = line.firstIndex(of: " "), let key = KeyReader.key(from: line[line.index(after: space)...])
        else { return nil }
        switch line[..<space] {
        case "exact": return .exact(key)
        case "prefix": return .prefix(key)
        case "tag": return .tag(QueryTag(key: key))
        case "exact-tag": return .exactTag(QueryTag(key: key))
        default: return nil
        }
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
        // One `LIKE` per pattern, so that each is served by the key's pattern index (`LIKE ANY` is not); a
        // data-modifying `WITH` runs whether or not the query reads it (reading it costs a third of the
        // statement's time).
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 256, interpolationCount: 3 + patterns.count)
        sql.appendLiteral("WITH stale AS (UPDATE ")
        sql.appendInterpolation(unescaped: "\"\(table)\"")
        sql.appendLiteral(" SET updated_at = '-infinity', saved_at = 0 WHERE key = ANY(")
        sql.appendInterpolation(exact)
        sql.appendLiteral(")")
        for pattern in patterns {
            sql.appendLiteral(" OR key LIKE ")
            sql.appendInterpolation(pattern)
        }
        sql.appendLiteral(") SELECT set_config('synchronous_commit', 'off', true), pg_notify(")
        sql.appendInterpolation(channel)
        sql.appendLiteral(", ")
        sql.appendInterpolation(payload)
        sql.appendLiteral(")")
        return PostgresQuery(stringInterpolation: sql)
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
