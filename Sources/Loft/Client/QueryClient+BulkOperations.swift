/// Operations on every entry under a key prefix that passes a filter, found through the prefix index.
extension QueryClient {
    /// Marks every matching entry stale (unless a query of it has a `.static` `staleTime`) and refetches those
    /// that `refetchType` names (default: the ones with an enabled observer). A disabled entry is never
    /// refetched. Returns at once; await the result's `settled()` to wait for the refetches.
    ///
    /// - Parameters:
    ///   - prefix: the key prefix (default: every key); a dictionary part covers one with more pairs.
    ///   - exact: only the entry of exactly `prefix`.
    ///   - filter: which of them (default: all).
    ///   - refetchType: which of the invalidated entries refetch.
    /// - Returns: the entries reached, whose refetches `settled()` awaits.
    @discardableResult
    public func invalidateQueries(
        _ prefix: QueryKey = QueryKey(parts: []), exact: Bool = false, filter: QueryFilter = .all,
        refetchType: RefetchType = .active
    ) -> StartedRefetches {
        let matching = entries(matching: prefix, exact: exact, filter: filter)
        share {
            SharedChange(.invalidate(refetchType), [exact ? .exact(prefix) : .prefix(prefix)], filter: .init(filter))
        }
        for entry in matching { entry.send(.invalidated(refetchType)) }
        return StartedRefetches(matching)
    }

    /// Refetches every matching entry that is not disabled, active or not (TanStack's default), joining a fetch
    /// in flight: through an enabled query of the entry, else with the last request made for it. `.static`
    /// data is left alone (only an explicit `refetch()` of its query refetches it). Returns at once; await the
    /// result's `settled()` to wait for the refetches (a fetch paused offline is not awaited).
    @discardableResult
    public func refetchQueries(
        _ prefix: QueryKey = QueryKey(parts: []), exact: Bool = false, filter: QueryFilter = .all
    ) -> StartedRefetches {
        let matching = entries(matching: prefix, exact: exact, filter: filter)
        for entry in matching { entry.send(.refetchRequested(.manual)) }
        return StartedRefetches(matching)
    }

    /// Removes every matching entry from the cache (a fetch in flight is cancelled). A removed entry is gone:
    /// its queries and consumers move to the next entry made for their key, which the next fetch makes.
    public func removeQueries(_ prefix: QueryKey = QueryKey(parts: []), exact: Bool = false, filter: QueryFilter = .all)
    {
        share { SharedChange(.remove, [exact ? .exact(prefix) : .prefix(prefix)], filter: .init(filter)) }
        for entry in entries(matching: prefix, exact: exact, filter: filter) { remove(entry) }
    }

    /// Puts every matching entry back to its initial state (the `initialData` of a query that has some, else
    /// no data and no error; a fetch in flight is cancelled), then refetches the active ones.
    ///
    /// - Parameters:
    ///   - prefix: the keys to reset, by prefix (default: every key).
    ///   - exact: only the key `prefix` itself (default false).
    ///   - filter: which of the matching entries (default `.all`).
    public func resetQueries(_ prefix: QueryKey = QueryKey(parts: []), exact: Bool = false, filter: QueryFilter = .all)
    {
        for entry in entries(matching: prefix, exact: exact, filter: filter) { entry.send(.reset) }
    }

    /// Cancels the fetches in flight of every matching entry; their waiters get `QueryError.cancelled`.
    ///
    /// - Parameters:
    ///   - prefix: the keys whose fetches to cancel, by prefix (default: every key).
    ///   - exact: only the key `prefix` itself (default false).
    ///   - filter: which of the matching entries (default `.all`).
    ///   - revert: put back the state from before the fetch (default), unless data was written during it; with
    ///     false, the state stays as it is, with the fetch status idle.
    public func cancelQueries(
        _ prefix: QueryKey = QueryKey(parts: []), exact: Bool = false, filter: QueryFilter = .all, revert: Bool = true
    ) {
        for entry in entries(matching: prefix, exact: exact, filter: filter) {
            entry.send(.cancelRequested(revert: revert))
        }
    }

    /// How many matching entries are fetching (`FetchStatus.fetching`; a filter may ask for `.paused`).
    public func isFetching(
        _ prefix: QueryKey = QueryKey(parts: []), exact: Bool = false, filter: QueryFilter = .all
    ) -> Int {
        var filter = filter
        if filter.fetchStatus == nil { filter.fetchStatus = .fetching }
        return entries(matching: prefix, exact: exact, filter: filter).count
    }

    /// Refetches the observers of every entry under `prefix` with `request` instead of their last one (a
    /// mutation's `.newData(request)`); observers whose request type differs are left alone.
    ///
    /// - Returns: the entries reached, whose fetches a caller who wants to wait awaits with `settled()`.
    @discardableResult
    public func refetchQueries(
        _ prefix: QueryKey, exact: Bool = false, withRequest request: any Sendable
    ) -> StartedRefetches {
        let matching = entries(matching: prefix, exact: exact)
        for entry in matching {
            entry.refetch(withRequest: request)
        }
        return StartedRefetches(matching)
    }

    /// Removes every entry and cancels every fetch, and removes the settled mutation calls (pending ones go on).
    /// It is this client's own clearing: it publishes no shared change.
    public func clear() {
        for entry in entries(matching: QueryKey(parts: []), exact: false) { remove(entry) }
        mutationCache.removeSettled()
    }
}
