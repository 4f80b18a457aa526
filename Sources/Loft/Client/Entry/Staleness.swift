/// The staleness rule (TanStack v5), stated once. Every other answer to "is this data stale" or "does this
/// trigger refetch it" is derived from `staleFrom` and `refetchFrom`: the state machine's decisions, the
/// observer tally's summary (and through it the entry's trigger mirrors and its staleness alarm), and the
/// `isStale` of every snapshot and view.
package enum Staleness {
    /// The instant before every other: what is stale, or refetched, from it is so whenever it is asked.
    package static let anyInstant = SchedulerInstant(nanosecondsSinceEpoch: .min)

    /// A `StaleTime` as the rule reads it, its duration converted to nanoseconds once: the conversion costs
    /// more than the rule, and the observer tally asks the rule after every event.
    package enum Window: Hashable, Sendable {
        case nanoseconds(Int64)
        case infinity
        case `static`

        package init(_ staleTime: StaleTime) {
            switch staleTime {
            case .duration(let duration): self = .nanoseconds(duration.nanoseconds)
            case .infinity: self = .infinity
            case .static: self = .static
            }
        }
    }

    /// From when the data in `snapshot` is stale for an observer judging by `window`: missing data is stale
    /// (`anyInstant`); `.static` data never is (nil); invalidated data (or data whose last refetch failed) is
    /// (`anyInstant`); other data is stale from `window` after its update (never, for `.infinity`).
    package static func staleFrom(_ snapshot: EntrySnapshot, judgedBy window: Window) -> SchedulerInstant? {
        guard snapshot.data != nil, let updatedAt = snapshot.dataUpdatedAt else { return anyInstant }
        if window == .static { return nil }
        if snapshot.isInvalidated { return anyInstant }
        guard case .nanoseconds(let nanoseconds) = window else { return nil }
        return updatedAt.advanced(byNanoseconds: nanoseconds)
    }

    /// From when a trigger set to `refetches` (appear, focus, reconnect) refetches for an observer judging by
    /// `window`: `.always` whenever it comes, `.ifStale` from `staleFrom`, `.never` never; data that is
    /// `.static` is refetched by no trigger, `.always` included (only an explicit `refetch()` fetches it).
    package static func refetchFrom(
        _ refetches: RefetchTrigger, judgedBy window: Window, _ snapshot: EntrySnapshot
    ) -> SchedulerInstant? {
        if window == .static, snapshot.data != nil { return nil }
        return switch refetches {
        case .always: anyInstant
        case .ifStale: staleFrom(snapshot, judgedBy: window)
        case .never: nil
        }
    }

    /// `staleFrom(_:judgedBy:)` for a `StaleTime`.
    package static func staleFrom(_ snapshot: EntrySnapshot, judgedBy staleTime: StaleTime) -> SchedulerInstant? {
        staleFrom(snapshot, judgedBy: Window(staleTime))
    }

    /// `refetchFrom(_:judgedBy:_:)` for a `StaleTime`.
    package static func refetchFrom(
        _ refetches: RefetchTrigger, judgedBy staleTime: StaleTime, _ snapshot: EntrySnapshot
    ) -> SchedulerInstant? {
        refetchFrom(refetches, judgedBy: Window(staleTime), snapshot)
    }

    /// Whether the data in `snapshot` is stale at `now` for an observer judging by `staleTime` (a disabled
    /// observer sees nothing stale).
    package static func isStale(
        _ snapshot: EntrySnapshot, judgedBy staleTime: StaleTime, isEnabled: Bool = true, at now: SchedulerInstant
    ) -> Bool {
        guard isEnabled, let instant = staleFrom(snapshot, judgedBy: staleTime) else { return false }
        return instant <= now
    }

    /// Whether a trigger set to `refetches`, coming at `now`, refetches for an observer judging by `staleTime`.
    package static func refetches(
        _ refetches: RefetchTrigger, judgedBy staleTime: StaleTime, _ snapshot: EntrySnapshot,
        at now: SchedulerInstant
    ) -> Bool {
        guard let instant = refetchFrom(refetches, judgedBy: staleTime, snapshot) else { return false }
        return instant <= now
    }

    /// Whether an entry nobody observes is stale (filters, the inspector): only when it has no data or was
    /// invalidated. No observer's `staleTime` applies, so its age is not consulted (TanStack's rule; the
    /// inspector shows such an entry as inactive, with its age).
    package static func isStaleUnobserved(_ snapshot: EntrySnapshot) -> Bool {
        snapshot.data == nil || snapshot.isInvalidated
    }

    /// When the key as a whole turns stale, for the inspector: by the key's `staleTime` (the tally's), nil
    /// when invalidated (stale now), without observers that judge it, or never.
    package static func keyStaleFrom(_ snapshot: EntrySnapshot) -> SchedulerInstant? {
        guard !snapshot.isInvalidated, let staleTime = snapshot.staleTime else { return nil }
        return staleFrom(snapshot, judgedBy: staleTime)
    }
}
