#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The identity of one piece of server state: an ordered list of parts.
///
/// ```swift
/// let all: QueryKey = "users"
/// let one: QueryKey = ["users", 42]
/// let filtered = QueryKey("issues", ["status": "open", "page": 2])
/// ```
///
/// **Behavior**
/// - Two keys are equal when their parts are equal; dictionary parts compare by their pairs, whatever order
///   they were written in.
/// - `["project", 7]` is a prefix of `["project", 7, "issues"]`; every bulk operation of `QueryClient` takes
///   a prefix.
/// - The hash is computed once, when the key is made, so a cache read does not hash the parts again.
/// - `description` is stable (dictionary parts are printed sorted by key), so it can name files and logs.
public struct QueryKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The parts, outermost first.
    public let parts: [Part]
    private let precomputedHash: Int

    /// Makes a key of `parts`.
    public init(parts: [Part]) {
        self.parts = parts
        var hasher = Hasher()
        hasher.combine(parts)
        precomputedHash = hasher.finalize()
    }

    /// Makes a key of one string part: `QueryKey(value: "users")`.
    public init(value: String) {
        self.init(parts: [.string(value)])
    }

    /// Makes a key of the given parts: `QueryKey("users", 42)`.
    public init(_ parts: Part...) {
        self.init(parts: parts)
    }

    /// This key with `part` added at the end: `key.appending(id)`.
    public func appending(_ part: Part) -> QueryKey {
        QueryKey(parts: parts + [part])
    }

    /// This key with the parts of `suffix` added at the end.
    public func appending(contentsOf suffix: QueryKey) -> QueryKey {
        QueryKey(parts: parts + suffix.parts)
    }

    /// Whether `prefix`'s parts are the first parts of this key (a key is a prefix of itself). As in every
    /// filter, a dictionary part of `prefix` covers one that holds the same pairs and more:
    /// `["todos", ["status": "done"]]` is a prefix of `["todos", ["status": "done", "page": 1]]`.
    public func hasPrefix(_ prefix: QueryKey) -> Bool {
        prefix.parts.count <= parts.count && zip(prefix.parts, parts).allSatisfy { $0.covers($1) }
    }

    /// The parts joined by `/`: `users/42`, `issues/{page:2,status:open}`.
    public var description: String {
        parts.map(\.description).joined(separator: "/")
    }

    /// Two keys are equal when their parts are.
    public static func == (lhs: QueryKey, rhs: QueryKey) -> Bool {
        lhs.precomputedHash == rhs.precomputedHash && lhs.parts == rhs.parts
    }

    /// Feeds the hash computed when the key was made.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }

    /// The hash computed when the key was made (by the process's seeded hasher, so as hard to predict as any),
    /// mixed with a table's seed: a look-up in a dictionary or set of keys runs no hasher at all (row (u)).
    public func _rawHashValue(seed: Int) -> Int {
        precomputedHash ^ seed
    }

    /// Decodes a key from its list of parts.
    public init(from decoder: any Decoder) throws {
        self.init(parts: try [Part](from: decoder))
    }

    /// Encodes the key as its list of parts.
    public func encode(to encoder: any Encoder) throws {
        try parts.encode(to: encoder)
    }
}

extension QueryKey: ExpressibleByStringLiteral {
    /// A key of one string part: `let key: QueryKey = "users"`.
    public init(stringLiteral value: String) {
        self.init(value: value)
    }
}

extension QueryKey: ExpressibleByStringInterpolation {
    /// A key of one string part built by interpolation: `let key: QueryKey = "missing-\(label)"`.
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(value: String(stringInterpolation: stringInterpolation))
    }
}

extension QueryKey: ExpressibleByArrayLiteral {
    /// A key of several parts, written with literals or values of any part type:
    /// `["users", 42]`, `["issue", issue.id]`, `["todos", ["status": status, "page": page]]`.
    public init(arrayLiteral elements: any QueryKeyPartConvertible...) {
        self.init(parts: elements.map(\.queryKeyPart))
    }
}
