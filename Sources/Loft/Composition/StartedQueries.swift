/// What `Queries.refetch()` and `Queries.invalidate()` started: the members' refetches, and the combined
/// result once they settled. The calls themselves return at once, in an `async` function as anywhere else.
///
/// ```swift
/// dashboard.refetch()                                  // returns at once
/// let (profile, stats) = await dashboard.refetch().value  // waits, then combines the members' new states
/// ```
///
/// **Behavior**
/// - `value` returns once the fetch in flight of every member reached has settled, whatever its result (a
///   member's error is in its state, which `combine` sees), then gives `combine` of the members' states then.
/// - A fetch paused for the network is not awaited (as `StartedRefetches.settled()`).
/// - Holding the handle keeps its `Queries` alive; awaiting it any number of times, or never, changes nothing.
/// - Cancelling the awaiting task makes `value` return the combined result of the moment; the fetches go on.
public struct StartedQueries<Combined: Sendable>: Sendable {
    private let refetches: StartedRefetches
    private let queries: Queries<Combined>

    init(_ parts: [StartedRefetches], of queries: Queries<Combined>) {
        refetches = StartedRefetches(joining: parts)
        self.queries = queries
    }

    /// How many members' entries the call reached.
    public var count: Int {
        refetches.count
    }

    /// Returns once every refetch the call started or joined has settled; a paused fetch is not awaited.
    public func settled() async {
        await refetches.settled()
    }

    /// The combined result once the refetches have settled (`settled()`, then `Queries.combined`).
    public var value: Combined {
        get async {
            await refetches.settled()
            return queries.combined
        }
    }
}
