extension QueryClient {
    /// Sets the defaults of every query whose key is under `prefix`, instead of the client's; where several
    /// registered prefixes cover a key, the longest wins. A query's own options still override them.
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

    /// The defaults that apply to `key`: those of the longest registered prefix that covers it, else the
    /// client's.
    public func defaults(for key: QueryKey) -> QueryDefaults {
        guard hasPrefixDefaults.load(ordering: .acquiring) else { return defaults }
        return state.withLock { $0.defaults(for: key, fallback: defaults) }
    }
}

extension QueryClient.State {
    /// The defaults of the longest registered prefix that covers `key`, else `fallback`.
    func defaults(for key: QueryKey, fallback: QueryDefaults) -> QueryDefaults {
        guard !prefixDefaults.isEmpty else { return fallback }
        let covering = prefixDefaults.filter { key.hasPrefix($0.key) }
        return covering.max { $0.key.parts.count < $1.key.parts.count }?.value ?? fallback
    }
}
