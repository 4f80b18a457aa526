import Foundation
import Loft
import PostgresNIO

/// A change as it travels in a notification's payload: the change, its version (its place in the order of
/// its keys' changes, which the database gave it) and the instance that made it.
///
/// The payload is text of one line per field, read without Foundation's JSON decoder (a change reaches every
/// instance, and that decoder took a third of a fan-out's time): keys are their JSON (as their rows' keys),
/// the value of a row its JSON, last, to the end.
///
/// ```
/// loft-change 2 6F1C…-… 1042     (format, origin, version)
/// set                        (or: saved, set-without-value, remove, invalidate active)
/// filter all any any         (type, stale|fresh|any, idle|fetching|paused|any)
/// exact ["user",42]          (or: prefix, tag, exact-tag, each with a key's JSON)
/// value {"name":"Ada"}       (set only)
/// ```
///
/// `set` and `saved` are a row's new value (a save), with the value or, when it does not fit, without it
/// (the receivers read the row); `set-without-value` is a `setQueryData` whose value cannot travel (the
/// receivers invalidate the key).
struct FleetMessage: Sendable {
    /// PostgreSQL's limit on a payload is 8,000 bytes; this leaves room for nothing else.
    static let maximumPayload = 7_900
    /// The first word of a payload, and the version of its format.
    private static let header = "loft-change 2 "

    let origin: UUID
    let change: SharedChange
    /// Whether the change is a row's new value, written by a save.
    let isRowWrite: Bool
    /// The change's version; 0 in a message still to be sent (the database gives it).
    var version: Int64 = 0

    init(origin: UUID, change: SharedChange, isRowWrite: Bool = false, version: Int64 = 0) {
        self.origin = origin
        self.change = change
        self.isRowWrite = isRowWrite
        self.version = version
    }

    /// The payload around its version, which the statement that sends it puts between the two (the
    /// database gives it in that statement); a row's value too large to travel is left out (the receivers
    /// read the row, or invalidate the key when it is not a row's).
    ///
    /// - Throws: `CacheError.encodingFailed` when even that is too large (a key of thousands of characters), or
    ///   a key does not encode.
    func parts() throws(CacheError) -> (head: String, tail: String) {
        let head = Self.header + origin.uuidString + " "
        var lines: [String] = []
        switch change.operation {
        case .invalidate(let refetchType): lines.append("invalidate \(refetchType.rawValue)")
        case .remove: lines.append("remove")
        case .setData(let json): lines.append(isRowWrite ? (json == nil ? "saved" : "set") : "set-without-value")
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
        // Room for the version's digits.
        let room = Self.maximumPayload - head.utf8.count - 20
        let light = "\n" + lines.joined(separator: "\n")
        if case .setData(.some(let json)) = change.operation, isRowWrite {
            let tail = light + "\nvalue " + json
            if tail.utf8.count <= room { return (head, tail) }
            lines[0] = "saved"
            return (head, try Self.fitting("\n" + lines.joined(separator: "\n"), room: room, change: change))
        }
        return (head, try Self.fitting(light, room: room, change: change))
    }

    /// The whole payload, with `version` (as the statement that sends it makes it).
    func payload(version: Int64) throws(CacheError) -> String {
        let (head, tail) = try parts()
        return head + String(version) + tail
    }

    /// The message a payload holds, or nil when it holds none.
    static func read(_ payload: String) -> FleetMessage? {
        let lines = payload.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0].hasPrefix(header) else { return nil }
        let stamp = lines[0].dropFirst(header.count).split(separator: " ", omittingEmptySubsequences: false)
        guard stamp.count == 2, let origin = UUID(uuidString: String(stamp[0])),
            stamp[1].allSatisfy(\.isASCII), let version = Int64(stamp[1]), version >= 0,
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
        guard let (operation, isRowWrite) = operation(lines[1], value: value) else { return nil }
        // A row's value names its one key.
        if isRowWrite {
            guard targets.count == 1, case .exact = targets[0] else { return nil }
        }
        return FleetMessage(
            origin: origin, change: SharedChange(operation, targets, filter: filter), isRowWrite: isRowWrite,
            version: version)
    }

    private static func fitting(_ tail: String, room: Int, change: SharedChange) throws(CacheError) -> String {
        guard tail.utf8.count <= room else {
            throw .encodingFailed(
                key: firstKey(of: change), type: "SharedChange",
                reason: "its notification would take \(tail.utf8.count) bytes, more than PostgreSQL's 8,000")
        }
        return tail
    }

    /// The operation a line names, and whether it is a row's new value.
    private static func operation(_ line: Substring, value: Substring?) -> (SharedChange.Operation, Bool)? {
        switch line {
        case "remove" where value == nil: return (.remove, false)
        case "set-without-value" where value == nil: return (.setData(json: nil), false)
        case "saved" where value == nil: return (.setData(json: nil), true)
        case "set": return value.map { (.setData(json: String($0)), true) }
        default:
            guard value == nil, line.hasPrefix("invalidate "),
                let refetchType = RefetchType(rawValue: String(line.dropFirst("invalidate ".count)))
            else { return nil }
            return (.invalidate(refetchType), false)
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

    /// The statement that sends this change (an invalidation, a removal, a value that cannot travel) with a
    /// new version: an invalidation by key or prefix first marks the rows of those keys stale, in the same
    /// statement (so a receiver that refetches finds them stale): their `updated_at` goes to `-infinity` (no
    /// single flight takes them as fresh), their `saved_at` to 0 (no expiring policy takes them as valid), and
    /// each takes the next version (drawn once its row is locked, so a key's versions grow in the order its
    /// changes commit); the notification carries the highest. Tags are not in the table: their rows are left
    /// as they are. The statement's commit does not wait for the disk (`synchronous_commit` off, for it
    /// alone): a server crash may lose the marks as it loses the notifications, and every instance then marks
    /// everything stale.
    func statement(table: String, sequence: String, channel: String) throws(CacheError) -> PostgresQuery {
        let (head, tail) = try parts()
        let next = "nextval('\"\(sequence)\"')"
        var exact: [String] = []
        var patterns: [String] = []
        if case .invalidate = change.operation {
            for target in change.targets {
                switch target {
                case .exact(let key): exact.append(try PostgresQueryCache.text(of: key))
                case .prefix(let prefix):
                    let rows = try Self.rows(under: prefix)
                    patterns.append(rows.pattern)
                    if let key = rows.key { exact.append(key) }
                case .tag, .exactTag: continue
                }
            }
        }
        guard !exact.isEmpty || !patterns.isEmpty else {
            return "SELECT pg_notify(\(channel), \(head) || \(unescaped: next)::text || \(tail))"
        }
        // One `LIKE` per pattern, so that each is served by the key's pattern index (`LIKE ANY` is not).
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 256, interpolationCount: 6 + patterns.count)
        sql.appendLiteral("WITH stale AS (UPDATE ")
        sql.appendInterpolation(unescaped: "\"\(table)\"")
        sql.appendLiteral(" SET updated_at = '-infinity', saved_at = 0, version = ")
        sql.appendInterpolation(unescaped: next)
        sql.appendLiteral(" WHERE key = ANY(")
        sql.appendInterpolation(exact)
        sql.appendLiteral(")")
        for pattern in patterns {
            sql.appendLiteral(" OR key LIKE ")
            sql.appendInterpolation(pattern)
        }
        sql.appendLiteral(" RETURNING version) SELECT set_config('synchronous_commit', 'off', true), pg_notify(")
        sql.appendInterpolation(channel)
        sql.appendLiteral(", ")
        sql.appendInterpolation(head)
        sql.appendLiteral(" || COALESCE((SELECT max(version) FROM stale), ")
        sql.appendInterpolation(unescaped: next)
        sql.appendLiteral(")::text || ")
        sql.appendInterpolation(tail)
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
