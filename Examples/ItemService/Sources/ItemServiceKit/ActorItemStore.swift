/// The cache a server developer writes instead of a library, as the benchmarks' baseline: an actor with the
/// items and the instant each was fetched, and one task in flight per key that concurrent requests share.
public actor ActorItemStore: ItemStore {
    private var items: [Int: (item: Item, fetchedAt: ContinuousClock.Instant)] = [:]
    private var inFlight: [Int: Task<Item, any Error>] = [:]
    private let upstream: any ItemUpstream
    private let staleTime: Duration

    /// A store in front of `upstream`, whose items are fresh for `staleTime`.
    public init(upstream: any ItemUpstream, staleTime: Duration) {
        self.upstream = upstream
        self.staleTime = staleTime
    }

    /// The item: cached while fresh, else fetched (requests at once share the task); the cached one when the
    /// upstream fails.
    public func item(_ id: Int) async throws -> Item {
        if let cached = items[id], cached.fetchedAt.duration(to: .now) < staleTime { return cached.item }
        let task = inFlight[id] ?? Task { [upstream] in try await upstream.item(id) }
        inFlight[id] = task
        do {
            let item = try await task.value
            if inFlight[id] == task { inFlight[id] = nil }
            items[id] = (item, .now)
            return item
        } catch {
            if inFlight[id] == task { inFlight[id] = nil }
            if let cached = items[id] { return cached.item }
            throw error
        }
    }

    /// Renames the item at the upstream and caches its answer.
    public func update(_ change: ItemChange) async throws -> Item {
        let item = try await upstream.update(change)
        items[change.id] = (item, .now)
        return item
    }
}
