import Foundation

/// A change that a client's caller made to its cache, in a form another client can apply: what a link between
/// the instances of a service (such as LoftPostgres's `PostgresFleetLink`) carries from one to the others.
///
/// ```swift
/// let subscription = client.sharedChanges.sink { change in send(try JSONEncoder().encode(change)) }
/// // on another instance, for each change received:
/// other.apply(try JSONDecoder().decode(SharedChange.self, from: payload))
/// ```
///
/// `invalidateQueries` (by prefix, exact key or tag), `invalidate(_:)`, `removeQueries` and `setQueryData`
/// (both forms, and `setQueriesData` for each key it changed) publish one; what the client does by itself
/// (fetches, garbage collection, `clear()`, a change it applied) publishes none.
public struct SharedChange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the change does to the entries it names.
    public enum Operation: Sendable, Hashable, Codable {
        /// Mark them stale and refetch those the `RefetchType` names.
        case invalidate(RefetchType)
        /// Remove them.
        case remove
        /// Set this value, as JSON. Nil when the value cannot travel (it is not `Encodable`, or a link found it
        /// too large): the entry is then invalidated instead, and its next fetch reads the new value.
        case setData(json: String?)
    }

    /// Which entries the change names.
    public enum Target: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Those whose key has this prefix (a dictionary part covers one with more pairs).
        case prefix(QueryKey)
        /// The entry of exactly this key.
        case exact(QueryKey)
        /// Those with a tag this one covers.
        case tag(QueryTag)
        /// Those with exactly this tag.
        case exactTag(QueryTag)

        /// `prefix users`, `exact users/42`, `tag todos`, `exactTag todos`.
        public var description: String {
            switch self {
            case .prefix(let key): "prefix \(key)"
            case .exact(let key): "exact \(key)"
            case .tag(let tag): "tag \(tag)"
            case .exactTag(let tag): "exactTag \(tag)"
            }
        }
    }

    /// The part of a `QueryFilter` that can travel: its predicate, a closure, cannot.
    public struct Filter: Sendable, Hashable, Codable {
        /// Active entries, inactive ones, or all.
        public var type: QueryTypeFilter
        /// Only stale (true) or only fresh (false) entries; nil for either.
        public var isStale: Bool?
        /// Only entries with this fetch status; nil for any.
        public var fetchStatus: FetchStatus?

        /// The travelling part of `filter`. A predicate is left out, so the receiver acts on every entry the
        /// rest of the filter matches: more entries than the sender's, never fewer.
        public init(_ filter: QueryFilter) {
            type = filter.type
            isStale = filter.isStale
            fetchStatus = filter.fetchStatus
        }

        /// The filter the receiver applies.
        public var queryFilter: QueryFilter {
            QueryFilter(type: type, isStale: isStale, fetchStatus: fetchStatus)
        }
    }

    /// What the change does.
    public var operation: Operation
    /// The entries it names (each acted on once however many name it).
    public var targets: [Target]
    /// Which of them, further.
    public var filter: Filter
    /// The change's place in the order of its keys' changes, when the link that carries it has one (a shared
    /// store that numbers every change, as LoftPostgres's table does); nil otherwise. `apply(_:)` acts on an
    /// entry only if the entry holds no newer version, so that clients applying changes in different orders
    /// still end with the last one.
    public var version: Int64?

    /// Makes a change.
    public init(_ operation: Operation, _ targets: [Target], filter: Filter = Filter(.all), version: Int64? = nil) {
        self.operation = operation
        self.targets = targets
        self.filter = filter
        self.version = version
    }

    /// `invalidate(active) prefix users`, for logs.
    public var description: String {
        let names = targets.map(\.description).joined(separator: ", ") + (version.map { " @\($0)" } ?? "")
        switch operation {
        case .invalidate(let refetchType): return "invalidate(\(refetchType)) \(names)"
        case .remove: return "remove \(names)"
        case .setData(let json): return "setData \(names)\(json == nil ? " (value not carried)" : "")"
        }
    }

    /// The change that sets `value` for `key`, carrying the value as JSON when it is `Encodable`.
    static func setData(_ value: any Sendable, for key: QueryKey) -> SharedChange {
        let json = (value as? any Encodable).flatMap { try? JSONEncoder.sharedChanges.encode($0) }
        return SharedChange(.setData(json: json.map { String(decoding: $0, as: UTF8.self) }), [.exact(key)])
    }
}

extension JSONEncoder {
    /// How a `SharedChange` encodes a value: keys sorted, so that equal values give equal text.
    static var sharedChanges: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
