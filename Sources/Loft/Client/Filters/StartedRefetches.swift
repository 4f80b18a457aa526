/// What `invalidateQueries`, `invalidate(_:)` and `refetchQueries` started: the entries they reached, whose
/// fetches a caller who wants to wait awaits with `settled()`. The operations themselves return at once, in
/// an `async` function as anywhere else.
///
/// ```swift
/// client.invalidateQueries("todos")                  // returns at once
/// await client.invalidateQueries("todos").settled()  // waits for the refetches it started
/// ```
///
/// **Behavior**
/// - `settled()` returns once the fetch in flight of each entry reached has settled, whatever its result
///   (errors stay in the entries' snapshots); an entry with no fetch counts as settled.
/// - A fetch paused for the network is not awaited (TanStack's `refetchQueries`): `settled()` does not wait
///   for the network to come back.
/// - Cancelling the waiting task makes `settled()` return; the fetches go on.
public struct StartedRefetches: Sendable {
    private let entries: [QueryCacheEntry]

    init(_ entries: [QueryCacheEntry]) {
        self.entries = entries
    }

    /// The entries of several operations, as one.
    init(joining parts: [StartedRefetches]) {
        entries = parts.flatMap(\.entries)
    }

    /// How many entries the operation reached (marked stale, or asked to refetch).
    public var count: Int {
        entries.count
    }

    /// Returns once every fetch the operation started or joined has settled; a paused fetch is not awaited.
    public func settled() async {
        for entry in entries { await entry.settled(skipsPaused: true) }
    }
}
