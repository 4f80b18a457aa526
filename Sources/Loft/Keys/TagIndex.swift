/// The tags of a cache's entries, arranged so that the keys a tag reaches are found without scanning the
/// others: the tags sit in a `KeyIndex` (a tag covers the tags it is a prefix of), each with the keys that
/// declare it.
package struct TagIndex: Sendable {
    private var tags = KeyIndex()
    private var keysByTag: [QueryKey: Set<QueryKey>] = [:]
    private var tagsByKey: [QueryKey: Set<QueryKey>] = [:]

    package init() {}

    /// Gives `key` these tags too (a key keeps every tag it was given until `remove`).
    package mutating func add(_ tags: [QueryTag], to key: QueryKey) {
        for tag in tags {
            guard tagsByKey[key, default: []].insert(tag.parts).inserted else { continue }
            if keysByTag[tag.parts] == nil { self.tags.insert(tag.parts) }
            keysByTag[tag.parts, default: []].insert(key)
        }
    }

    /// Forgets the tags of `key`.
    package mutating func remove(_ key: QueryKey) {
        guard let tags = tagsByKey.removeValue(forKey: key) else { return }
        for tag in tags {
            keysByTag[tag]?.remove(key)
            if keysByTag[tag]?.isEmpty == true {
                keysByTag[tag] = nil
                self.tags.remove(tag)
            }
        }
    }

    /// The keys with a tag that `tag` covers (itself or a longer one), or exactly `tag` when `exact`.
    package func keys(tagged tag: QueryTag, exact: Bool = false) -> Set<QueryKey> {
        var keys: Set<QueryKey> = []
        for covered in tags.keys(withPrefix: tag.parts, exact: exact) {
            keys.formUnion(keysByTag[covered] ?? [])
        }
        return keys
    }

    /// The tags of `key`.
    package func tags(of key: QueryKey) -> Set<QueryTag> {
        Set((tagsByKey[key] ?? []).map { QueryTag(key: $0) })
    }

    /// Whether no key has a tag.
    package var isEmpty: Bool {
        tagsByKey.isEmpty
    }
}
