/// A label a query declares (`QueryOptions.tags`) so that mutations can invalidate it by what it holds rather
/// than by its key: `"todos"`, `["todo", 7]`, `["user", 7, "avatar"]`.
///
/// Tags are hierarchical, like keys: a tag covers the tags it is a prefix of, so invalidating `"todo"` reaches
/// the queries tagged `["todo", 7]` and `["todo", 8]`, and invalidating `["todo", 7]` reaches only the first
/// (RTK Query's `{ type, id }` tags, spelled as parts).
///
/// ```swift
/// QueryOptions<Todo>(tags: ["todos", ["todo", 7]])
/// ```
public struct QueryTag: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The tag's parts, as a key (tags and query keys never mix: a tag reaches only the queries that declare it).
    public let parts: QueryKey

    /// A tag with the parts of `key`.
    public init(key: QueryKey) {
        parts = key
    }

    /// A tag of these values: `QueryTag("todo", id)` with `id` an `Int` variable.
    public init(_ values: any QueryKeyPartConvertible...) {
        parts = QueryKey(parts: values.map(\.queryKeyPart))
    }

    /// Whether invalidating this tag reaches a query tagged `other`: this tag is a prefix of it.
    public func covers(_ other: QueryTag) -> Bool {
        other.parts.hasPrefix(parts)
    }

    /// `#["todo", 7]`.
    public var description: String {
        "#\(parts)"
    }
}

extension QueryTag: ExpressibleByStringLiteral {
    /// A tag of one part: `"todos"`.
    public init(stringLiteral value: String) {
        self.init(key: QueryKey(value: value))
    }
}

extension QueryTag: ExpressibleByArrayLiteral {
    /// A tag of several parts: `["todo", 7]`.
    public init(arrayLiteral elements: QueryKey.Part...) {
        self.init(key: QueryKey(parts: elements))
    }
}
