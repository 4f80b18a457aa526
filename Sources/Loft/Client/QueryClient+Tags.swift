/// Invalidation by tag: the entries whose queries declared a tag (`QueryOptions.tags`), found through the
/// client's tag index, never by scanning the other keys.
extension QueryClient {
    /// Marks stale every entry with a tag that `tag` covers (or exactly `tag`, with `exact`) and passes
    /// `filter`, and refetches those `refetchType` names (default: the active ones), as `invalidateQueries`
    /// does for a key prefix.
    public func invalidateQueries(
        tagged tag: QueryTag, exact: Bool = false, filter: QueryFilter = .all, refetchType: RefetchType = .active
    ) {
        share { SharedChange(.invalidate(refetchType), [exact ? .exactTag(tag) : .tag(tag)], filter: .init(filter)) }
        invalidate(entries(tagged: tag, exact: exact, filter: filter), refetchType)
    }

    /// `invalidateQueries(tagged:)`, returning once the refetches it started have settled.
    public func invalidateQueries(
        tagged tag: QueryTag, exact: Bool = false, filter: QueryFilter = .all, refetchType: RefetchType = .active
    ) async {
        let matching = entries(tagged: tag, exact: exact, filter: filter)
        share { SharedChange(.invalidate(refetchType), [exact ? .exactTag(tag) : .tag(tag)], filter: .init(filter)) }
        invalidate(matching, refetchType)
        for entry in matching { await entry.settled() }
    }

    /// Invalidates every entry that one of `targets` names, each once however many name it.
    public func invalidate(_ targets: [InvalidationTarget], refetchType: RefetchType = .active) {
        share { SharedChange(.invalidate(refetchType), targets.map(\.shared)) }
        invalidate(entries(for: targets.map(\.shared), filter: .all), refetchType)
    }

    /// `invalidate(_:)`, returning once the refetches it started have settled.
    public func invalidate(_ targets: [InvalidationTarget], refetchType: RefetchType = .active) async {
        let matching = entries(for: targets.map(\.shared), filter: .all)
        share { SharedChange(.invalidate(refetchType), targets.map(\.shared)) }
        invalidate(matching, refetchType)
        for entry in matching { await entry.settled() }
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

    private func invalidate(_ entries: [QueryCacheEntry], _ refetchType: RefetchType) {
        for entry in entries { entry.send(.invalidated(refetchType)) }
    }
}
