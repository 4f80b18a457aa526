/// A value read back from a persistent cache, with when it was saved.
public struct CachedValue<Value> {
    /// The decoded value.
    public var value: Value
    /// When it was saved, on the clock of whoever saved it (the client's scheduler).
    public var savedAt: SchedulerInstant

    /// Pairs a value with its save time.
    public init(value: Value, savedAt: SchedulerInstant) {
        self.value = value
        self.savedAt = savedAt
    }
}

extension CachedValue: Sendable where Value: Sendable {}
