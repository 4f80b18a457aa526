/// The entries under a key prefix, found through the client's prefix index, which the first such lookup makes.
extension QueryClient.State {
    /// The entries under `prefix` (or exactly `prefix`). An exact key or the empty prefix reads the table; any
    /// other prefix reads the index, made here from the table's keys when this is the first (one pass, under
    /// the client's lock) and kept in step by every entry added or removed after.
    mutating func entries(matching prefix: QueryKey, exact: Bool) -> [QueryCacheEntry] {
        if exact { return entries[prefix].map { [$0] } ?? [] }
        if prefix.parts.isEmpty { return entries.values }
        if index == nil {
            var made = KeyIndex()
            for key in entries.keys { made.insert(key) }
            index = made
        }
        return index?.keys(withPrefix: prefix).compactMap { entries[$0] } ?? []
    }
}
