/// The keys of a cache arranged as a tree of parts, so that all keys under a prefix are found without
/// scanning the others: finding the 100 keys under `["item", 42]` among 100,000 visits those 100 only.
///
/// A dictionary part of a prefix covers the dictionary parts that hold the same pairs and more (TanStack's
/// partial match): each node lists its dictionary children apart, so such a prefix visits the dictionary
/// siblings at that level, never the other keys.
package struct KeyIndex: Sendable {
    private struct Node: Sendable {
        var isKey = false
        var children: [QueryKey.Part: Node] = [:]
        /// The children whose part is a dictionary.
        var dictionaryParts: Set<QueryKey.Part> = []
    }

    private var root = Node()

    package init() {}

    package mutating func insert(_ key: QueryKey) {
        Self.insert(key.parts[...], into: &root)
    }

    package mutating func remove(_ key: QueryKey) {
        Self.remove(key.parts[...], from: &root)
    }

    /// Every key that `prefix` covers (itself included), or just `prefix` when `exact`.
    package func keys(withPrefix prefix: QueryKey, exact: Bool = false) -> [QueryKey] {
        if exact {
            var node = root
            for part in prefix.parts {
                guard let child = node.children[part] else { return [] }
                node = child
            }
            return node.isKey ? [prefix] : []
        }
        var found: [QueryKey] = []
        Self.find(prefix.parts[...], in: root, path: [], into: &found)
        return found
    }

    private static func find(
        _ parts: ArraySlice<QueryKey.Part>, in node: Node, path: [QueryKey.Part], into found: inout [QueryKey]
    ) {
        guard let part = parts.first else { return collect(node, path: path, into: &found) }
        if let child = node.children[part] {
            find(parts.dropFirst(), in: child, path: path + [part], into: &found)
        }
        guard case .dictionary = part else { return }
        for candidate in node.dictionaryParts where candidate != part && part.covers(candidate) {
            if let child = node.children[candidate] {
                find(parts.dropFirst(), in: child, path: path + [candidate], into: &found)
            }
        }
    }

    private static func insert(_ parts: ArraySlice<QueryKey.Part>, into node: inout Node) {
        guard let first = parts.first else {
            node.isKey = true
            return
        }
        if case .dictionary = first { node.dictionaryParts.insert(first) }
        insert(parts.dropFirst(), into: &node.children[first, default: Node()])
    }

    /// Returns whether `node` became empty, so the parent can drop it.
    @discardableResult
    private static func remove(_ parts: ArraySlice<QueryKey.Part>, from node: inout Node) -> Bool {
        if let first = parts.first {
            guard node.children[first] != nil else { return false }
            if remove(parts.dropFirst(), from: &node.children[first, default: Node()]) {
                node.children[first] = nil
                node.dictionaryParts.remove(first)
            }
        } else {
            node.isKey = false
        }
        return !node.isKey && node.children.isEmpty
    }

    private static func collect(_ node: Node, path: [QueryKey.Part], into found: inout [QueryKey]) {
        if node.isKey { found.append(QueryKey(parts: path)) }
        for (part, child) in node.children {
            collect(child, path: path + [part], into: &found)
        }
    }
}
