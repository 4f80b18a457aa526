/// Something that happens to a cache entry: the input of `EntryStateMachine`.
package enum EntryEvent: Sendable {
    /// How `dataSet` treats data already there.
    package enum WriteMode: Sendable {
        /// Replaces it (`setQueryData`).
        case always
        /// Only when there is no data (initial data, a value restored from the persistent cache).
        case ifMissing
        /// Only when there is none or it is older (hydration never overwrites newer data).
        case ifNewer
    }

    /// Where data written with `dataSet` comes from, which decides whether it is saved; a version (from a
    /// store that orders a key's changes) decides whether it is written at all.
    package enum DataOrigin: Sendable, Equatable {
        /// This client's caller or its own work (`setQueryData`, initial data, hydration): saved to the
        /// entry's persistent cache.
        case local
        /// The entry's own persistent cache: marked restored, not saved back.
        case restored(version: Int64?)
        /// Another client sharing this one's caches (`QueryClient.apply(_:)`): saved to a local cache, not to
        /// a network one (which the other client wrote already).
        case shared(version: Int64?)

        var isRestored: Bool {
            if case .restored = self { true } else { false }
        }

        /// The version the data has in its store, if the store orders changes.
        var version: Int64? {
            switch self {
            case .local: nil
            case .restored(let version), .shared(let version): version
            }
        }
    }

    /// The result of comparing a new value with the data of one version, made outside the lock (`==` is a
    /// user closure); nil where structural sharing is off.
    package struct Comparison: Sendable, Equatable {
        let dataVersion: UInt64
        let isSame: Bool

        package init(dataVersion: UInt64, isSame: Bool) {
            self.dataVersion = dataVersion
            self.isSame = isSame
        }

        /// Whether the value equals the data of `snapshot`: it was equal, and the data has not moved since.
        func holds(for snapshot: EntrySnapshot) -> Bool {
            isSame && dataVersion == snapshot.dataVersion
        }
    }

    // Fetching
    case fetchRequested(FetchRequest, FetchIntent, observer: UInt64?, waiter: EntryWaiter?)
    /// A read (`fetchQuery`, `ensureQueryData`, `prefetchQuery`) that brings no fetcher yet: answered from the
    /// cache or joined to the fetch in flight as `fetchRequested` would be. When it would start or replace a
    /// fetch, or ask the persistent cache, nothing changes and the output asks for the fetcher
    /// (`EntryStateMachine.Output.needsFetcher`): a caller who joins makes none (row (e)).
    case readRequested(FetchCall, FetchIntent, waiter: EntryWaiter)
    /// The answer of the persistent cache to a fetch request under `.useInsteadOfFetching`.
    case storeChecked(
        FetchRequest, FetchIntent, observer: UInt64?, waiter: EntryWaiter?, isValid: Bool,
        stored: CachedValue<any Sendable>?)
    case taskCreated(fetch: UInt64, TrackedTask<Void>, Retryer)
    case attemptFailed(fetch: UInt64, failureCount: Int, error: any Error)
    case fetchPaused(fetch: UInt64)
    case fetchContinued(fetch: UInt64)
    case fetchSucceeded(fetch: UInt64, any Sendable, Comparison?)
    case fetchFailed(fetch: UInt64, any Error, failureCount: Int)
    /// The persistent cache's answer to a failed fetch under `.useIfFetchFails`.
    case fallbackLoaded(fetch: UInt64, any Error, failureCount: Int, stored: CachedValue<any Sendable>?)
    case cancelRequested(revert: Bool)
    /// A caller waits for the fetch in flight to settle, whatever its result; answered at once when none runs,
    /// and, with `skipsPaused`, when it waits paused for the network.
    case waiterJoined(EntryWaiter, skipsPaused: Bool)
    /// A caller stopped waiting (its task was cancelled).
    case waiterLeft(EntryWaiter)

    // Observers
    case observerAdded(UInt64, EntryObserver)
    case observerChanged(UInt64, EntryObserver)
    case observerRemoved(UInt64)

    // Data and bulk operations
    /// `expecting`: write only if the data is still at this version (an updater computed from it).
    case dataSet(
        any Sendable, updatedAt: SchedulerInstant, WriteMode, DataOrigin, Comparison?, expecting: UInt64?)
    /// `version`: the invalidation's place in the order of the key's changes, from a store that orders them;
    /// an entry holding a newer version ignores it.
    case invalidated(RefetchType, version: Int64? = nil)
    case refetchRequested(FetchReason)
    /// A mutation's `.newData(request)`: the enabled observers that take requests of its type refetch with it.
    case refetchWithRequestRequested(any Sendable)
    case reset
    case removed
    /// The client's memory budget (or a trim) asks to evict the entry: an idle one is removed at once (its next
    /// caller gets the key's next entry); one observed or fetching refuses.
    case evictionRequested(EvictionReason)
    /// `restores`: an empty entry reads the stored value, as its usage policy says (a query's); a
    /// `setQueryData`, about to write, adopts without reading.
    case persistenceAdopted(EntryPersistence, restores: Bool = true)

    // Environment and time
    case focusRegained
    case reconnected
    /// An alarm the entry set on the client's timer queue rang (maybe one its predecessor of the same key set):
    /// the entry looks at its garbage-collection and staleness deadlines.
    case alarmRang(SchedulerInstant)
}
