/// Why an entry was evicted from memory before its `gcTime` (`QueryCacheEvent.evicted`).
public enum EvictionReason: String, Sendable, Hashable, CaseIterable {
    /// A write took the client over its `MemoryBudget`.
    case budget
    /// `QueryClient.trim(to:)` asked for it.
    case trim
    /// The host reported memory pressure, followed with `QueryClient.follow(_:)`.
    case memoryPressure
}
