extension QueryClient {
    /// What a filter sees of each entry under `prefix` (the prefix itself included; every entry by default) that
    /// passes `filter`, in no particular order: for a telemetry gauge, a devtool's list, a test.
    ///
    /// ```swift
    /// let fetching = client.queryInfos(filter: QueryFilter(fetchStatus: .fetching)).count
    /// ```
    ///
    /// - Parameters:
    ///   - prefix: the key prefix to look under (default: the empty key, under which every key is).
    ///   - filter: which entries to keep (default: all).
    /// - Returns: one `QueryInfo` per entry, read at the client's `scheduler.now`.
    public func queryInfos(under prefix: QueryKey = QueryKey(parts: []), filter: QueryFilter = .all) -> [QueryInfo] {
        let now = scheduler.now
        return entries(matching: prefix, exact: false, filter: filter).map { $0.info(at: now) }
    }
}
