extension QueryClient {
    /// Sets the defaults of every query whose key is under `prefix`, over the client's. Every registered prefix
    /// that covers a key applies, merged field by field: the longer prefix wins per field, and a field no prefix
    /// sets comes from the client's defaults. A query's own options still override them all. Setting defaults
    /// for a prefix again replaces that prefix's.
    ///
    /// ```swift
    /// client.setQueryDefaults(QueryDefaults(staleTime: .seconds(60)), for: "settings")
    /// ```
    ///
    /// It applies to queries attached to a key after the call, and to `fetchQuery`, `prefetchQuery`,
    /// `setQueryData` and `snapshot(for:)`.
    public func setQueryDefaults(_ defaults: QueryDefaults, for prefix: QueryKey) {
        state.withLock { $0.prefixDefaults[prefix] = defaults }
        hasPrefixDefaults.store(true, ordering: .releasing)
    }

    /// The defaults that apply to `key`: the client's, merged with those of every registered prefix that
    /// covers it, shortest first (the longer prefix wins per field).
    public func defaults(for key: QueryKey) -> QueryDefaults {
        guard hasPrefixDefaults.load(ordering: .acquiring) else { return defaults }
        return state.withLock { $0.defaults(for: key, fallback: defaults) }
    }

    /// The `staleTime` of `defaults(for:)`, without copying the rest of the defaults: what a read-through call
    /// asks on every hit (row (u)).
    @usableFromInline
    package func defaultStaleTime(for key: QueryKey) -> StaleTime {
        readDefaults(for: key) { $0.staleTime }
    }

    /// `read` of `defaults(for:)`, given the client's own defaults in place when no prefix has any (nothing
    /// merged or copied: rows (u) and (e) read one or two fields per call).
    func readDefaults<Field>(for key: QueryKey, _ read: (QueryDefaults) -> Field) -> Field {
        guard hasPrefixDefaults.load(ordering: .acquiring) else { return read(defaults) }
        return read(defaults(for: key))
    }
}

extension QueryClient.State {
    /// `fallback` merged with the defaults of every registered prefix that covers `key`, shortest first.
    func defaults(for key: QueryKey, fallback: QueryDefaults) -> QueryDefaults {
        guard !prefixDefaults.isEmpty else { return fallback }
        // Shortest first; prefixes of one length (dictionary parts can cover a key twice) in a fixed order.
        let covering = prefixDefaults.filter { key.hasPrefix($0.key) }.sorted {
            ($0.key.parts.count, $0.key.description) < ($1.key.parts.count, $1.key.description)
        }
        return covering.reduce(fallback) { merged, prefix in merged.merging(prefix.value) }
    }
}
