/// How an entry reads and writes its persistent cache, when its state machine asks.
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
    /// Persists this entry through `persistence` unless it is persisted already (the first query wins), and
    /// restores the stored value into an empty entry when the usage policy shows stored values up front.
    package func adoptPersistence(_ persistence: EntryPersistence) {
        send(.persistenceAdopted(persistence))
    }

    func checkStore(
        _ request: FetchRequest, _ intent: FetchIntent, _ observer: UInt64?, _ waiter: EntryWaiter?,
        _ persistence: EntryPersistence
    ) {
        let isValid = persistence.hasValidValue(for: key, at: context.scheduler.now)
        let stored = isValid && data == nil ? load(from: persistence) : nil
        send(
            .storeChecked(request, intent, observer: observer, waiter: waiter, isValid: isValid, stored: stored))
    }

    /// Saves `value`; a failure becomes an event.
    func save(_ value: any Sendable, at instant: SchedulerInstant, to persistence: EntryPersistence) {
        do throws(CacheError) {
            try persistence.save(value, for: key, at: instant)
        } catch {
            context.events.send(.persistenceFailed(key, error: error))
        }
    }

    /// The valid stored value, if any; a failure becomes an event.
    func load(from persistence: EntryPersistence) -> CachedValue<any Sendable>? {
        do throws(CacheError) {
            return try persistence.validValue(for: key, at: context.scheduler.now)
        } catch {
            context.events.send(.persistenceFailed(key, error: error))
            return nil
        }
    }
}
