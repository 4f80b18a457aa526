#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension QueryKey {
    /// One part of a key: a string, an integer, a boolean, a double, a UUID, or a string-keyed dictionary of
    /// parts (a filter object such as `["status": "open", "page": 2]`).
    ///
    /// Literals make parts directly: `"users"`, `42`, `true`, `1.5`, `["page": 2]`.
    public enum Part: Sendable, Hashable, CustomStringConvertible {
        /// A string part.
        case string(String)
        /// An integer part.
        case int(Int)
        /// A boolean part.
        case bool(Bool)
        /// A floating-point part.
        case double(Double)
        /// A UUID part.
        case uuid(UUID)
        /// A dictionary part; equal to another when it holds the same pairs, in any order.
        case dictionary([String: Part])

        /// The part as text; dictionaries sorted by key so that the text is stable.
        public var description: String {
            switch self {
            case .string(let value): value
            case .int(let value): String(value)
            case .bool(let value): String(value)
            case .double(let value): String(value)
            case .uuid(let value): value.uuidString
            case .dictionary(let pairs):
                "{" + pairs.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
            }
        }
    }
}

extension QueryKey.Part {
    /// Two parts are equal when they are the same kind with equal contents. A double part equals itself even
    /// when it is NaN (every NaN is one part), so a key that holds one finds its entry; `-0.0` equals `0`.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)): left == right
        case (.int(let left), .int(let right)): left == right
        case (.bool(let left), .bool(let right)): left == right
        case (.double(let left), .double(let right)): left == right || (left.isNaN && right.isNaN)
        case (.uuid(let left), .uuid(let right)): left == right
        case (.dictionary(let left), .dictionary(let right)): left == right
        default: false
        }
    }

    /// Hashes the kind and the contents, alike for parts that are equal (every NaN alike).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value):
            hasher.combine(0 as UInt8)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .bool(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value.isNaN ? .nan : value)
        case .uuid(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .dictionary(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        }
    }
}

extension QueryKey.Part {
    /// Whether this part, in a filter, matches `other`: equal parts do, and a dictionary covers a dictionary
    /// that holds the same pairs (each covering in turn) and more.
    public func covers(_ other: QueryKey.Part) -> Bool {
        guard case .dictionary(let filter) = self, case .dictionary(let pairs) = other else { return self == other }
        return filter.allSatisfy { name, value in pairs[name].map { value.covers($0) } ?? false }
    }
}

extension QueryKey.Part: ExpressibleByStringLiteral {
    /// A string part from a literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension QueryKey.Part: ExpressibleByIntegerLiteral {
    /// An integer part from a literal.
    public init(integerLiteral value: Int) {
        self = .int(value)
    }
}

extension QueryKey.Part: ExpressibleByBooleanLiteral {
    /// A boolean part from a literal.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension QueryKey.Part: ExpressibleByFloatLiteral {
    /// A double part from a literal.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension QueryKey.Part: ExpressibleByDictionaryLiteral {
    /// A dictionary part from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, QueryKey.Part)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// A value that can be a part of a key, so that `QueryKey.Part(id)` and `key.appending(id)` read naturally.
public protocol QueryKeyPartConvertible {
    /// This value as a key part.
    var queryKeyPart: QueryKey.Part { get }
}

extension String: QueryKeyPartConvertible {
    /// A string part.
    public var queryKeyPart: QueryKey.Part { .string(self) }
}

extension Int: QueryKeyPartConvertible {
    /// An integer part.
    public var queryKeyPart: QueryKey.Part { .int(self) }
}

extension Bool: QueryKeyPartConvertible {
    /// A boolean part.
    public var queryKeyPart: QueryKey.Part { .bool(self) }
}

extension Double: QueryKeyPartConvertible {
    /// A double part.
    public var queryKeyPart: QueryKey.Part { .double(self) }
}

extension UUID: QueryKeyPartConvertible {
    /// A UUID part.
    public var queryKeyPart: QueryKey.Part { .uuid(self) }
}

extension QueryKey.Part: QueryKeyPartConvertible {
    /// The part itself.
    public var queryKeyPart: QueryKey.Part { self }
}

extension QueryKey {
    /// Makes a key of values: `QueryKey("users", userID)` with `userID` an `Int` variable.
    public init(_ values: any QueryKeyPartConvertible...) {
        self.init(parts: values.map(\.queryKeyPart))
    }
}

extension Dictionary: QueryKeyPartConvertible where Key == String, Value == any QueryKeyPartConvertible {
    /// A dictionary part of the pairs' parts: what a filter object written inside a key literal makes
    /// (`["todos", ["status": status, "page": 2]]`).
    public var queryKeyPart: QueryKey.Part { .dictionary(mapValues(\.queryKeyPart)) }
}

extension QueryKey {
    /// A part named by its kind inside a key literal or a list of values: `["item", .int(id)]`,
    /// `QueryKey("flag", .bool(isOn))`. A literal takes the values themselves too (`["item", id]`); this
    /// spelling makes a part of exactly the kind it names.
    public struct SpelledPart: QueryKeyPartConvertible, Sendable {
        /// The part it spells.
        public let queryKeyPart: QueryKey.Part
    }
}

extension QueryKeyPartConvertible where Self == QueryKey.SpelledPart {
    /// A string part.
    public static func string(_ value: String) -> Self { Self(queryKeyPart: .string(value)) }
    /// An integer part.
    public static func int(_ value: Int) -> Self { Self(queryKeyPart: .int(value)) }
    /// A boolean part.
    public static func bool(_ value: Bool) -> Self { Self(queryKeyPart: .bool(value)) }
    /// A floating-point part.
    public static func double(_ value: Double) -> Self { Self(queryKeyPart: .double(value)) }
    /// A UUID part.
    public static func uuid(_ value: UUID) -> Self { Self(queryKeyPart: .uuid(value)) }
    /// A dictionary part.
    public static func dictionary(_ value: [String: QueryKey.Part]) -> Self { Self(queryKeyPart: .dictionary(value)) }
}

extension QueryKey.Part {
    /// The part for `value`.
    public init(_ value: some QueryKeyPartConvertible) {
        self = value.queryKeyPart
    }

    /// A dictionary part of a typed dictionary held in a variable (`QueryKey.Part(filters)` with
    /// `filters: [String: String]`); a dictionary written inside a key literal needs no conversion.
    public init<Value: QueryKeyPartConvertible>(_ dictionary: [String: Value]) {
        self = .dictionary(dictionary.mapValues(\.queryKeyPart))
    }
}

extension QueryKey {
    /// This key with `value` added at the end: `key.appending(userID)`.
    public func appending(_ value: some QueryKeyPartConvertible) -> QueryKey {
        appending(value.queryKeyPart)
    }
}

extension QueryKey.Part: Codable {
    private enum TaggedKey: String, CodingKey, CaseIterable {
        case double
        case uuid
        case dictionary
    }

    /// Any key of an object, to count them.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }

    /// How a double that JSON has no number for is written inside its tag.
    private static let nonFiniteDoubles: [String: Double] = ["nan": .nan, "+inf": .infinity, "-inf": -.infinity]

    /// Strings, integers, booleans and dictionaries are plain JSON; doubles and UUIDs are tagged
    /// (`{"double": 1.5}`, `{"uuid": "…"}`), and so is a dictionary whose only key is one of the tags
    /// (`{"dictionary": {"double": 1}}`), so that every part decodes back to exactly the part encoded and two
    /// different parts never encode alike. A double that JSON cannot write is the string `"nan"`, `"+inf"` or
    /// `"-inf"` in its tag; `-0.0` is written as `0`, the part it equals.
    public init(from decoder: any Decoder) throws {
        // A tag is an object with exactly one key (`allKeys` of a `TaggedKey` container would skip the others).
        if let object = try? decoder.container(keyedBy: AnyKey.self), object.allKeys.count == 1,
            let tagged = try? decoder.container(keyedBy: TaggedKey.self), tagged.allKeys.count == 1,
            let part = Self.decodeTagged(tagged)
        {
            self = part
            return
        }
        let single = try decoder.singleValueContainer()
        if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int.self) {
            self = .int(value)
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else if let value = try? single.decode([String: QueryKey.Part].self) {
            self = .dictionary(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: single,
                debugDescription: "A query key part is a string, integer, boolean, tagged double or UUID, "
                    + "or a dictionary of parts.")
        }
    }

    /// The part a one-key object with a tag's name holds; nil when the value does not fit the tag (an object
    /// written by another encoder: it is then read as a plain dictionary).
    private static func decodeTagged(_ tagged: KeyedDecodingContainer<TaggedKey>) -> QueryKey.Part? {
        if let value = try? tagged.decode(Double.self, forKey: .double) { return .double(value) }
        if let text = try? tagged.decode(String.self, forKey: .double), let value = nonFiniteDoubles[text] {
            return .double(value)
        }
        if let value = try? tagged.decode(UUID.self, forKey: .uuid) { return .uuid(value) }
        if let value = try? tagged.decode([String: QueryKey.Part].self, forKey: .dictionary) {
            return .dictionary(value)
        }
        return nil
    }

    /// Encodes the part; see `init(from:)` for the format.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .dictionary(let value):
            // A lone key named like a tag would read back as that tag: wrap the dictionary in its own tag.
            if value.count == 1, let name = value.keys.first, TaggedKey(rawValue: name) != nil {
                var container = encoder.container(keyedBy: TaggedKey.self)
                try container.encode(value, forKey: .dictionary)
            } else {
                var container = encoder.singleValueContainer()
                try container.encode(value)
            }
        case .double(let value):
            var container = encoder.container(keyedBy: TaggedKey.self)
            if let name = Self.nonFiniteDoubles.first(where: { $0.value == value || (value.isNaN && $0.value.isNaN) })?
                .key
            {
                try container.encode(name, forKey: .double)
            } else {
                try container.encode(value == 0 ? 0 : value, forKey: .double)
            }
        case .uuid(let value):
            var container = encoder.container(keyedBy: TaggedKey.self)
            try container.encode(value, forKey: .uuid)
        }
    }
}
