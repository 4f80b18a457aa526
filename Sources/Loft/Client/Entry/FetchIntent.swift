/// What a caller wants of a fetch request; the entry's state machine decides from it, the data and the
/// freshness whether to answer from the cache, join the fetch in flight, start one, or do nothing.
@usableFromInline
package enum FetchIntent: Sendable, Equatable {
    /// `refetch()`: always fetches; on an entry that has data, cancels the fetch in flight and starts anew.
    case explicit
    /// A trigger the entry chose already (invalidation, focus, reconnect, a bulk refetch): joins a fetch in
    /// flight, else starts one.
    case trigger
    /// `value(for:)`, `fetchQuery`, `prefetchQuery`: data fresh for `staleTime` answers; else fetch or join.
    case ifStale(StaleTime)
    /// `ensureQueryData`: any data answers, whatever its age.
    case ifMissing
    /// A query appeared (created, or given a new request or key): fetches when there is no data, when the
    /// stored value must be refreshed (`.useAndThenFetch`), or when `refetchOnAppear` says so for this
    /// staleness. Nothing while the observer is disabled.
    case appear(StaleTime, RefetchTrigger)
    /// A polling tick: nothing while the observer is disabled, or unfocused unless `inBackground`.
    case interval(inBackground: Bool)

    /// Whether the intent is a read that fetches only when it must (`ifStale`, `ifMissing`): its answer is a
    /// hit or a miss of the cache (`QueryCacheEvent.served`).
    var isRead: Bool {
        switch self {
        case .ifStale, .ifMissing: true
        case .explicit, .trigger, .appear, .interval: false
        }
    }

    /// The intent of a refetch the entry chose for `reason`: an invalidation or a bulk refetch (`.invalidation`,
    /// `.manual`) replaces a fetch in flight of an entry that has data, as an explicit refetch does, since that
    /// fetch may have started before the change it announces (TanStack's `cancelRefetch`); focus, reconnect
    /// and polling join it.
    init(refetchingFor reason: FetchReason) {
        self = reason == .invalidation || reason == .manual ? .explicit : .trigger
    }
}

/// A caller waiting for the result of a fetch, named by an id that grows with each waiter: the machine decides
/// who is answered with what; the entry's storage holds the continuation it resumes.
package struct EntryWaiter: Sendable, Hashable {
    package let id: UInt64

    package init(id: UInt64) {
        self.id = id
    }
}
