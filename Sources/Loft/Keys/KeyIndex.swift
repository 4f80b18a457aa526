/// The keys of a cache arranged as a tree of parts, so that all keys under a prefix are found without
/// scanning the others: finding the 100 keys under `["item", 42]` among 100,000 visits those 100 only.
///
/// A dictionary part of a prefix covers the dictionary parts that hold the same pairs and more (TanStack's
/// partial match): each node lists its dictionary children apart, so such a prefix visits the dictionary
/// siblings at that level, never the other keys.
package struct KeyIndex: Sendable {
    /// A part of a key: whether the path to it is a key, and the parts that follow it. A following part that
    /// ends a key and has nothing after it is a *leaf*, kept in a set rather than as a node of its own: most
    /// keys of a large cache end that way (`["item", 42]`), and a set's slot is half a node's (row (i)). A part
    /// is a leaf or a child, never both.
    private struct Node: Sendable {
        var isKey = false
        var children: [QueryKey.Part: Node] = [:]
        var leaves: Set<QueryKey.Part> = []
        /// The children and leaves whose part is a dictionary.
        var dictionaryParts: Set<QueryKey.Part> = []

        /// A key ends here and nothing follows it: it can be its parent's leaf.
        var isLeaf: Bool { isKey && children.isEmpty && leaves.isEmpty }
        var isEmpty: Bool { !isKey && children.isEmpty && leaves.isEmpty }
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
            var parts = prefix.parts[...]
            while let part = parts.popFirst() {
                if parts.isEmpty, node.leaves.contains(part) { return [prefix] }
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
        let rest = parts.dropFirst()
        func visit(_ candidate: QueryKey.Part) {
            if let child = node.children[candidate] {
                find(rest, in: child, path: path + [candidate], into: &found)
            } else if rest.isEmpty, node.leaves.contains(candidate) {
                found.append(QueryKey(parts: path + [candidate]))
            }
        }
        visit(part)
        guard case .dictionary = part else { return }
        for candidate in node.dictionaryParts where candidate != part && part.covers(candidate) {
            visit(candidate)
        }
    }

    private static func insert(_ parts: ArraySlice<QueryKey.Part>, into node: inout Node) {
        guard let first = parts.first else {
            node.isKey = true
            return
        }
        if case .dictionary = first { node.dictionaryParts.insert(first) }
        let rest = parts.dropFirst()
        if node.children[first] == nil {
            if rest.isEmpty {
                node.leaves.insert(first)
                return
            }
            // A leaf that a longer key now continues becomes a node that is a key.
            if node.leaves.remove(first) != nil { node.children[first] = Node(isKey: true) }
        }
        insert(rest, into: &node.children[first, default: Node()])
    }

    /// Returns whether `node` became empty, so the parent can drop it.
    @discardableResult
    private static func remove(_ parts: ArraySlice<QueryKey.Part>, from node: inout Node) -> Bool {
        if let first = parts.first {
            let rest = parts.dropFirst()
            if rest.isEmpty, node.leaves.remove(first) != nil {
                node.dictionaryParts.remove(first)
            } else if node.children[first] != nil {
                remove(rest, from: &node.children[first, default: Node()])
                switch node.children[first] {
                case let child? where child.isEmpty:
                    node.children[first] = nil
                    node.dictionaryParts.remove(first)
                case let child? where child.isLeaf:
                    // Nothing follows it any more: back to a leaf.
                    node.children[first] = nil
                    node.leaves.insert(first)
                default:
                    break
                }
            }
        } else {
            node.isKey = false
        }
        return node.isEmpty
    }

    private static func collect(_ node: Node, path: [QueryKey.Part], into found: inout [QueryKey]) {
        if node.isKey { found.append(QueryKey(parts: path)) }
        for part in node.leaves { found.append(QueryKey(parts: path + [part])) }
        for (part, child) in node.children {
            collect(child, path: path + [part], into: &found)
        }
    }
}
