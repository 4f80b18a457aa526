/// What the machine's state says of the entry as a whole: stale or not, what a filter sees, when a trigger
/// refetches it, and whether it is idle, active or disabled.
extension EntryStateMachine {
    /// Whether the entry is stale as a whole (for filters and the inspector): for one of its enabled
    /// observers; with none, only when it has no data or was invalidated (no observer's `staleTime` applies,
    /// so its age is not consulted).
    package func isStale(at now: SchedulerInstant) -> Bool {
        guard isObserved else { return Staleness.isStaleUnobserved(snapshot) }
        return observers.values.contains { observer in
            Staleness.isStale(
                snapshot, judgedBy: staleTime(of: observer), isEnabled: observer.isEnabled, at: now)
        }
    }

    /// The freshness `observer` judges by: its own, or the key's when it inherits it.
    func staleTime(of observer: EntryObserver) -> StaleTime {
        observer.judgesFreshness ? observer.staleTime : snapshot.staleTime ?? observer.staleTime
    }

    /// What a filter looks at.
    package func info(of key: QueryKey, at now: SchedulerInstant) -> QueryInfo {
        QueryInfo(
            key: key, status: snapshot.status, fetchStatus: snapshot.fetchStatus, dataUpdatedAt: snapshot.dataUpdatedAt,
            isStale: isStale(at: now), isActive: isActive, isDisabled: isDisabled,
            observerCount: snapshot.observerCount)
    }

    /// The first instant from which `trigger` (focus regained, network back) refetches the entry, as its data
    /// and observers stand: `Staleness.anyInstant` when it does whenever it comes, nil when it never does
    /// until something changes. The client reads it to skip the entries a trigger leaves alone.
    package func firstRefetch(on trigger: ObserverTally.Trigger) -> SchedulerInstant? {
        isRemoved ? nil : readTally { $0.firstRefetch(on: trigger, snapshot) } ?? nil
    }

    /// Whether the entry may be evicted: nobody observes it and it is not fetching (what makes it collectable
    /// too).
    package var isIdle: Bool {
        !isObserved && !isFetching && !isRemoved
    }

    /// Whether an enabled observer watches the entry.
    package var isActive: Bool {
        readTally { $0.enabled > 0 } ?? false
    }

    /// Whether bulk operations must leave the entry alone: every observer is disabled, or, with none, it was
    /// never fetched (nothing knows how to).
    package var isDisabled: Bool {
        isObserved ? !isActive : lastFetcher == nil
    }
}
