/// A bound on what a client keeps in memory: how many entries, or how much they cost by a measure of yours.
///
/// ```swift
/// let client = QueryClient(memoryBudget: .entries(10_000))
/// let byBytes = QueryClient(memoryBudget: .cost(64 << 20) { value in (value as? Data)?.count ?? 1 })
/// ```
///
/// **Behavior**
/// - Enforced on every write (an entry made, data written): while the client is over its limit, the least
///   recently used entry that nobody observes and that is not fetching is evicted (`QueryCacheEvent.evicted`
///   with `.budget`), at O(1) each. A read (`getQueryData`, a `fetchQuery` answered from the cache) counts as a
///   use.
/// - Observed and fetching entries are never evicted. When they alone exceed the limit, the client reports it
///   once (`QueryCacheEvent.overBudget`) and evicts nothing more until a write finds it over again after it was
///   back under.
/// - A persistent cache keeps what memory evicts: the next use of the key reads it back, as its policy says.
/// - `mutationCalls` bounds the client's mutation cache: past it, the oldest settled calls are removed before
///   their `gcTime`; a pending call is never removed.
/// - Without a budget (the default), `gcTime` alone bounds an entry's life, as in TanStack Query.
public struct MemoryBudget: Sendable {
    /// The most the client's entries may cost together (in entries, for `entries(_:)`).
    public let limit: Int
    /// How many settled mutation calls the client keeps at most (nil: no bound but their `gcTime`).
    public let mutationCalls: Int?
    /// The cost of one value; nil counts entries.
    let cost: (@Sendable (any Sendable) -> Int)?

    /// At most `count` entries (at least 1), and at most `mutationCalls` settled mutation calls.
    public static func entries(_ count: Int, mutationCalls: Int? = nil) -> MemoryBudget {
        MemoryBudget(limit: max(1, count), mutationCalls: mutationCalls.map { max(0, $0) }, cost: nil)
    }

    /// At most `limit` in total, each entry costing what `cost` says of its data (at least 1; an entry without
    /// data costs 1). `cost` runs outside every lock, once per value written.
    public static func cost(
        _ limit: Int, mutationCalls: Int? = nil, of cost: @escaping @Sendable (any Sendable) -> Int
    ) -> MemoryBudget {
        MemoryBudget(limit: max(1, limit), mutationCalls: mutationCalls.map { max(0, $0) }, cost: cost)
    }

    /// Whether entries are counted (rather than costed).
    var countsEntries: Bool { cost == nil }

    /// What an entry holding `data` costs.
    func cost(of data: (any Sendable)?) -> Int {
        guard let cost, let data else { return 1 }
        return max(1, cost(data))
    }
}
