/// Invalidation by tag: the entries whose queries declared a tag (`QueryOptions.tags`), found through the
/// client's tag index, never by scanning the other keys.
extension QueryClient {
    /// Marks stale every entry with a tag that `tag` covers (or exactly `tag`, with `exact`) and passes
    /// `filter`, and refetches those `refetchType` names (default: the active ones), as `invalidateQueries`
    /// does for a key prefix. Returns at once; await the result's `settled()` to wait for the refetches.
    @discardableResult
    public func invalidateQueries(
        tagged tag: QueryTag, exact: Bool = false, filter: QueryFilter = .all, refetchType: RefetchType = .active
    ) -> StartedRefetches {
        let matching = entries(tagged: tag, exact: exact, filter: filter)
        share { SharedChange(.invalidate(refetchType), [exact ? .exactTag(tag) : .tag(tag)], filter: .init(filter)) }
        return invalidate(matching, refetchType)
    }

    /// Invalidates every entry that one of `targets` names, each once however many name it. Returns at once;
    /// await the result's `settled()` to wait for the refetches.
    @discardableResult
    public func invalidate(_ targets: [InvalidationTarget], refetchType: RefetchType = .active) -> StartedRefetches {
        let matching = entries(for: targets.map(\.shared), filter: .all)
        share { SharedChange(.invalidate(refetchType), targets.map(\.shared)) }
        return invalidate(matching, refetchType)
    }

    /// The tags the queries of `key`'s entry declared (none when there is no entry).
    public func tags(of key: QueryKey) -> Set<QueryTag> {
        state.withLock { $0.tags.tags(of: key) }
    }

    /// Gives `entry`'s key these tags too, while `entry` is the key's live entry.
    package func tag(_ entry: QueryCacheEntry, with tags: [QueryTag]) {
        state.withLock { state in
            guard state.entries[entry.key] === entry else { return }
            state.tags.add(tags, to: entry.key)
        }
    }

    /// The entries with a tag `tag` covers that pass `filter`, in no particular order.
    package func entries(tagged tag: QueryTag, exact: Bool, filter: QueryFilter = .all) -> [QueryCacheEntry] {
        let found = state.withLock { state in
            state.tags.keys(tagged: tag, exact: exact).compactMap { state.entries[$0] }
        }
        guard !filter.isTrivial else { return found }
        let now = scheduler.now
        return found.filter { filter.matches($0.info(at: now)) }
    }

    private func invalidate(_ entries: [QueryCacheEntry], _ refetchType: RefetchType) -> StartedRefetches {
        for entry in entries { entry.send(.invalidated(refetchType)) }
        return StartedRefetches(entries)
    }
}
