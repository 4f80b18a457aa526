/// How an entry uses its persistent cache, following its `QueryCacheConfig.UsagePolicy`.
///
/// - `.useInsteadOfFetching`: a valid stored value is restored when a query appears, and a fetch of a key
///   with a valid stored value is answered from it without calling the fetcher, unless the entry was
///   invalidated.
/// - `.useAndThenFetch`: a valid stored value is restored when a query appears; the query then fetches.
/// - `.useIfFetchFails`: nothing is restored up front; a fetch that fails (after its retries) on an entry
///   without data falls back to the valid stored value, and its callers get that value.
///
/// Every value the entry gets from a fetch or a `setData` is saved (write-through); a failure is reported as
/// `QueryCacheEvent.persistenceFailed` and changes nothing in memory.
extension QueryCacheEntry {
    /// Persists this entry through `persistence` unless it is persisted already (the first query wins).
    package func adoptPersistence(_ persistence: EntryPersistence) {
        state.withLock { state in
            if state.persistence == nil { state.persistence = Boxed(persistence) }
        }
    }

    /// Restores the stored value when the entry has no data and the usage policy shows stored values up
    /// front. Returns whether it did.
    @discardableResult
    package func restoreFromPersistence() -> Bool {
        let persistence = state.withLock { state in state.snapshot.data == nil ? state.persistence?.value : nil }
        guard let persistence, persistence.config.usagePolicy != .useIfFetchFails else { return false }
        return restore(from: persistence) != nil
    }

    /// The answer to a fetch under `.useInsteadOfFetching` when the stored value is valid, else nil.
    func servedFromPersistence(_ request: FetchRequest) -> (any Sendable)? {
        let (persistence, data, isInvalidated) = state.withLock { state in
            (state.persistence?.value, state.snapshot.data, state.snapshot.isInvalidated)
        }
        guard let persistence, persistence.config.usagePolicy == .useInsteadOfFetching,
            request.reason != .invalidation, !isInvalidated,
            persistence.hasValidValue(for: key, at: context.scheduler.now)
        else { return nil }
        return data ?? restore(from: persistence)
    }

    /// The stored value to show when a fetch failed under `.useIfFetchFails` and the entry has no data.
    func fallbackAfterFailure() -> CachedValue<any Sendable>? {
        let persistence = state.withLock { state in state.snapshot.data == nil ? state.persistence?.value : nil }
        guard let persistence, persistence.config.usagePolicy == .useIfFetchFails else { return nil }
        return load(from: persistence)
    }

    /// Saves `value` (write-through); a failure becomes an event.
    func persist(_ value: any Sendable, at now: SchedulerInstant) {
        guard let persistence = state.withLock({ $0.persistence?.value }) else { return }
        do throws(CacheError) {
            try persistence.save(value, for: key, at: now)
        } catch {
            context.events.send(.persistenceFailed(key, error: error))
        }
    }

    private func restore(from persistence: EntryPersistence) -> (any Sendable)? {
        guard let stored = load(from: persistence) else { return nil }
        setData(stored.value, updatedAt: stored.savedAt, structuralSharing: false, onlyIfEmpty: true, isRestored: true)
        context.events.send(.restored(key))
        return data
    }

    private func load(from persistence: EntryPersistence) -> CachedValue<any Sendable>? {
        do throws(CacheError) {
            return try persistence.validValue(for: key, at: context.scheduler.now)
        } catch {
            context.events.send(.persistenceFailed(key, error: error))
            return nil
        }
    }
}
