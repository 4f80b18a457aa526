/// How an entry reads and writes its persistent cache, when its state machine asks.
///
/// - `.useInsteadOfFetching`: a valid stored value is restored when a query appears, and a fetch of a key
///   with a valid stored value is answered from it without calling the fetcher, unless the entry was
///   invalidated.
/// - `.useAndThenFetch`: a valid stored value is restored when a query appears; the query then fetches.
/// - `.useIfFetchFails`: nothing is restored up front; a fetch that fails (after its retries) on an entry
///   without data falls back to the valid stored value, and its callers get that value.
///
/// Every value the entry gets from a fetch or a `setData` is saved, behind the caller: the entry queues it on
/// its client's `PersistenceWriter` while it holds its lock, and the writer writes the latest value of each
/// key. A failure is reported as `QueryCacheEvent.persistenceFailed` and changes nothing in memory. A read
/// (restore, check, fallback) takes a value still queued over the one in the cache. A network provider
/// (`AsyncQueryCacheType`) is read in a tracked task that sends the answer back as an event; until then the
/// entry serves what it holds and the request waits.
extension QueryCacheEntry {
    /// Persists this entry through `persistence` unless it is persisted already (the first query wins), and
    /// restores the stored value into an empty entry when the usage policy shows stored values up front.
    package func adoptPersistence(_ persistence: EntryPersistence) {
        send(.persistenceAdopted(persistence))
    }

    /// Persists this entry through `persistence` unless it is persisted already, reading nothing: the caller
    /// writes a value next (`setQueryData`).
    package func adoptPersistenceForWriting(_ persistence: EntryPersistence) {
        send(.persistenceAdopted(persistence, restores: false))
    }

    func checkStore(
        _ request: FetchRequest, _ intent: FetchIntent, _ observer: UInt64?, _ waiter: EntryWaiter?,
        _ persistence: EntryPersistence
    ) {
        let now = context.now
        let isValid: Bool
        let stored: CachedValue<any Sendable>?
        if let queued = context.writer.pending(key, in: persistence) {
            // A value still queued for the cache is the stored one: no need to ask the cache.
            let valid = Self.valid(queued, persistence, now: now)
            isValid = valid != nil
            stored = data == nil ? valid : nil
        } else if persistence.isAwaited {
            // One read answers both questions; the entry goes on serving its data meanwhile.
            context.tracker.spawn { [self] in
                let stored = await loadAwaiting(from: persistence)
                send(
                    .storeChecked(
                        request, intent, observer: observer, waiter: waiter, isValid: stored != nil, stored: stored))
            }
            return
        } else {
            isValid = persistence.hasValidValue(for: key, at: now)
            stored = isValid && data == nil ? load(from: persistence) : nil
        }
        send(
            .storeChecked(request, intent, observer: observer, waiter: waiter, isValid: isValid, stored: stored))
    }

    /// Restores the valid stored value into the entry if it is still empty (a network provider's in a task).
    func restore(from persistence: EntryPersistence) {
        guard persistence.isAwaited, context.writer.pending(key, in: persistence) == nil else {
            return restore(load(from: persistence))
        }
        context.tracker.spawn { [self] in restore(await loadAwaiting(from: persistence)) }
    }

    private func restore(_ stored: CachedValue<any Sendable>?) {
        guard let stored else { return }
        setData(
            stored.value, updatedAt: stored.savedAt, mode: .ifMissing, structuralSharing: false,
            origin: .restored(version: stored.version))
    }

    /// Reads the stored value to show instead of `error` (a network provider's in a task).
    func loadFallback(fetch id: UInt64, _ error: any Error, failureCount: Int, _ persistence: EntryPersistence) {
        guard persistence.isAwaited, context.writer.pending(key, in: persistence) == nil else {
            let stored = load(from: persistence)
            send(.fallbackLoaded(fetch: id, error, failureCount: failureCount, stored: stored))
            return
        }
        context.tracker.spawn { [self] in
            let stored = await loadAwaiting(from: persistence)
            send(.fallbackLoaded(fetch: id, error, failureCount: failureCount, stored: stored))
        }
    }

    /// The valid stored value, if any (a value still queued for the cache first); a failure becomes an event.
    func load(from persistence: EntryPersistence) -> CachedValue<any Sendable>? {
        let now = context.now
        if let queued = context.writer.pending(key, in: persistence) {
            return Self.valid(queued, persistence, now: now)
        }
        do throws(CacheError) {
            return try persistence.validValue(for: key, at: now)
        } catch {
            context.emit(.persistenceFailed(key, error: error))
            return nil
        }
    }

    /// The valid stored value, if any, awaiting the provider (a value still queued for the cache first); a
    /// failure becomes an event.
    private func loadAwaiting(from persistence: EntryPersistence) async -> CachedValue<any Sendable>? {
        if let queued = context.writer.pending(key, in: persistence) {
            return Self.valid(queued, persistence, now: context.now)
        }
        return await sharedStoreRead { [self] in
            do throws(CacheError) {
                return try await persistence.validValueAwaiting(for: key, at: context.now)
            } catch {
                context.emit(.persistenceFailed(key, error: error))
                return nil
            }
        }
    }

    /// A value queued for the cache, as the cache would give it back: nil once the policy says it expired.
    private static func valid(
        _ queued: PersistenceWriter.Save, _ persistence: EntryPersistence, now: SchedulerInstant
    ) -> CachedValue<any Sendable>? {
        guard persistence.config.invalidationPolicy.isValid(savedAt: queued.savedAt, now: now) else { return nil }
        return CachedValue(value: queued.value, savedAt: queued.savedAt)
    }
}
