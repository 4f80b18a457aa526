/// A value read back from a persistent cache, with when it was saved.
public struct CachedValue<Value> {
    /// The decoded value.
    public var value: Value
    /// When it was saved, on the clock of whoever saved it (the client's scheduler).
    public var savedAt: SchedulerInstant
    /// The value's place in the order of its key's changes, from a store that orders them (a cache shared by a
    /// service's instances, which numbers every change of a key); nil for a store that does not. An entry
    /// holding a newer version keeps its data over an older one.
    public var version: Int64?

    /// Pairs a value with its save time and, from a store that orders changes, its version.
    public init(value: Value, savedAt: SchedulerInstant, version: Int64? = nil) {
        self.value = value
        self.savedAt = savedAt
        self.version = version
    }
}

extension CachedValue: Sendable where Value: Sendable {}
