import Foundation

/// Sharing a client's changes with other clients (the instances of a service): what its caller changed goes
/// out on `sharedChanges`, what another client changed comes in through `apply(_:)`.
extension QueryClient {
    /// The changes this client's caller makes (`invalidateQueries`, `invalidate(_:)`, `removeQueries`,
    /// `setQueryData`, `setQueriesData`), each as it is made, on the caller's thread, for a link that carries
    /// them to other clients.
    ///
    /// **Behavior**
    /// - A change the client made by itself (a fetch, garbage collection, `clear()`) or that it applied with
    ///   `apply(_:)` is not published: two links that forward each other's changes cannot loop.
    /// - An invalidation or a removal is published before the client acts on it, so that a link can put its
    ///   own work (marking shared rows stale) ahead of the refetches it starts; a `setQueryData` after the
    ///   value is set.
    /// - A `setQueryData` value is carried as JSON when it is `Encodable` (encoded only while someone
    ///   subscribes); otherwise the change carries none and receivers invalidate the key.
    public var sharedChanges: AnyPublisher<SharedChange, Never> {
        context.sharedChanges.eraseToAnyPublisher()
    }

    /// Applies a change another client published, without publishing it again.
    ///
    /// **Behavior**
    /// - `invalidate` and `remove` act on the entries its targets name that pass its filter, as the client's
    ///   own `invalidateQueries` and `removeQueries` do.
    /// - A change with a `version` leaves alone an entry that holds that version or a newer one (from a row it
    ///   read or a change it applied), and gives the others its version: a key's changes take effect in their
    ///   order, whatever order they arrive in. A removal has nothing to compare with once it acted.
    /// - `setData` decodes the value as the type the entry holds and sets it (now, by this client's clock). It is
    ///   saved to the entry's local persistent cache, never to a network one (`AsyncQueryCacheType`), which
    ///   the client that made the change shares and wrote already.
    ///   An entry with no data takes it as the type it persists, if it persists; otherwise, and for a value of
    ///   another type or a change that carries no value, the entry is invalidated instead (its next fetch
    ///   gets the truth). A key with no entry is left alone (nothing of it is held here).
    public func apply(_ change: SharedChange) {
        switch change.operation {
        case .invalidate(let refetchType):
            for entry in entries(for: change.targets, filter: change.filter.queryFilter) {
                entry.send(.invalidated(refetchType, version: change.version))
            }
        case .remove:
            for entry in entries(for: change.targets, filter: change.filter.queryFilter) { remove(entry) }
        case .setData(let json):
            for entry in entries(for: change.targets, filter: change.filter.queryFilter) {
                guard let json, let value = Self.decode(json, like: entry.data) ?? entry.decodeStored(json: json)
                else {
                    entry.send(.invalidated(.active, version: change.version))
                    continue
                }
                entry.setData(
                    value, updatedAt: scheduler.now, structuralSharing: defaults(for: entry.key).structuralSharing,
                    origin: .shared(version: change.version))
            }
        }
    }

    /// Marks every entry stale and refetches the active ones, because changes made elsewhere may have been
    /// missed (a link to the other clients was lost, and is back); reports `QueryCacheEvent.changesMissed`.
    ///
    /// - Parameter source: which link lost them, for the event.
    public func changesMissed(from source: String) {
        for entry in entries(matching: QueryKey(parts: []), exact: false) { entry.send(.invalidated(.active)) }
        context.emit(.changesMissed(from: source))
    }

    /// Publishes the change `make` builds, if anyone listens (building it may encode a value).
    func share(_ make: () -> SharedChange) {
        guard context.sharedChanges.subscriberCount > 0 else { return }
        context.sharedChanges.send(make())
    }

    /// The entries `targets` name that pass `filter`, each once.
    package func entries(for targets: [SharedChange.Target], filter: QueryFilter) -> [QueryCacheEntry] {
        var seen: Set<ObjectIdentifier> = []
        var found: [QueryCacheEntry] = []
        for target in targets {
            let matching =
                switch target {
                case .prefix(let prefix): entries(matching: prefix, exact: false, filter: filter)
                case .exact(let key): entries(matching: key, exact: true, filter: filter)
                case .tag(let tag): entries(tagged: tag, exact: false, filter: filter)
                case .exactTag(let tag): entries(tagged: tag, exact: true, filter: filter)
                }
            for entry in matching where seen.insert(ObjectIdentifier(entry)).inserted { found.append(entry) }
        }
        return found
    }

    /// `json` decoded as the type of `data`, or nil when there is no data, its type is not `Decodable`, or the
    /// JSON does not decode as it.
    private static func decode(_ json: String, like data: (any Sendable)?) -> (any Sendable)? {
        guard let data else { return nil }
        return decode(json, as: data)
    }

    /// `json` decoded as `Value`, the type of the data held (opened from its existential).
    private static func decode<Value: Sendable>(_ json: String, as _: Value) -> Value? {
        guard let type = Value.self as? any Decodable.Type else { return nil }
        return (try? JSONDecoder().decode(type, from: Data(json.utf8))) as? Value
    }
}
