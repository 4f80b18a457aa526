/// How a query starts a fetch: it attaches to the request's key and hands the entry one `QueryStart`.
extension Query {
    /// The key of `request`: the base key through the key adapter.
    func key(for request: Request) -> QueryKey {
        keyAdapter?(baseKey, request) ?? baseKey
    }

    /// Follows the entry of `key`; when it attaches anew, the entry adopts this query's persistence and gets
    /// its initial data if it has none.
    @discardableResult
    func attach(to key: QueryKey) -> ObserverFetchContext {
        let context = observation.fetchContext(for: key)
        guard context.isNewAttachment else { return context }
        let entry = context.entry
        if let persistence { entry.adoptPersistence(persistence) }
        let options = observation.options
        if let initialData = options.initialData {
            entry.setData(
                initialData, updatedAt: options.initialDataUpdatedAt ?? client.scheduler.now, mode: .ifMissing)
        }
        return context
    }

    /// The one way a query starts a fetch: `start` makes the request current if it says so, attaches to the
    /// request's key, hands the entry the fetch request and the intent (nil: what a query appearing asks, with
    /// its options' freshness and `refetchOnAppear`) through `ask`, and starts polling if it says so; returns
    /// what `ask` returned. A caller who awaits the answer asks with `QueryCacheEntry.start`, the others with
    /// `request`: a fetch nobody awaits carries no outcome (docs/Performance.md, row (k)).
    @discardableResult
    func start<Answer>(
        _ start: QueryStart<Request>,
        _ ask: (_ entry: QueryCacheEntry, FetchRequest, FetchIntent, _ observer: UInt64?) -> Answer = {
            entry, request, intent, observer in
            entry.request(request, intent, observer: observer)
        }
    ) -> Answer {
        if start.becomesCurrent { locked.withLock { $0.request = start.request } }
        let context = attach(to: key(for: start.request))
        let resolved = context.resolved
        let intent = start.intent ?? .appear(resolved.staleTime, resolved.refetchOnAppear)
        let answer = ask(
            context.entry, fetchRequest(start.request, reason: start.reason, resolved), intent, context.observerID)
        if start.polls { startPolling() }
        return answer
    }

    /// `start(_:_:)` for a caller who awaits the answer.
    func awaited(_ start: QueryStart<Request>) -> StartedFetch<Response> {
        self.start(start) { entry, request, intent, observer in
            StartedFetch(entry.start(request, intent, observer: observer), key: entry.key)
        }
    }

    func fetchRequest(
        _ request: Request, reason: FetchReason, _ resolved: ResolvedQueryOptions
    ) -> FetchRequest {
        let fetcher = fetcher
        return FetchRequest(
            fetch: { try await fetcher(request) },
            retry: resolved.retry,
            networkMode: resolved.networkMode,
            structuralSharing: resolved.structuralSharing,
            reason: reason,
            cancelsWhenUnobserved: resolved.cancelWhenUnobserved,
            meta: request
        )
    }
}

/// A fetch a query starts, as a value (`Query.start(_:_:)`): the request, why, what the entry is asked
/// (nil: what a query appearing asks), whether the request becomes the query's current one, and whether the
/// query then polls.
struct QueryStart<Request: Sendable> {
    let request: Request
    let reason: FetchReason
    let intent: FetchIntent?
    let becomesCurrent: Bool
    let polls: Bool

    init(_ request: Request, reason: FetchReason, intent: FetchIntent?, becomesCurrent: Bool, polls: Bool = true) {
        self.request = request
        self.reason = reason
        self.intent = intent
        self.becomesCurrent = becomesCurrent
        self.polls = polls
    }
}
