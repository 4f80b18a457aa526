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
    /// request's key, asks the entry as the intent says (nil: as a query appearing does, with its options'
    /// freshness and `refetchOnAppear`), and starts polling if it says so. The entry's answer is made only for
    /// a caller who awaits it (`awaited`): a fetch nobody awaits carries no outcome (docs/Performance.md,
    /// row (k)).
    @discardableResult
    func start(_ start: QueryStart<Request>, awaited: Bool) -> StartedFetch<Response>? {
        if start.becomesCurrent { locked.withLock { $0.request = start.request } }
        let context = attach(to: key(for: start.request))
        let resolved = context.resolved
        let intent = start.intent ?? .appear(resolved.staleTime, resolved.refetchOnAppear)
        let request = fetchRequest(start.request, reason: start.reason, resolved)
        var started: StartedFetch<Response>?
        if awaited {
            started = StartedFetch(
                context.entry.start(request, intent, observer: context.observerID), key: context.entry.key)
        } else {
            context.entry.request(request, intent, observer: context.observerID)
        }
        if start.polls { startPolling() }
        return started
    }

    /// `start(_:awaited:)` for a caller who awaits the answer.
    func awaited(_ start: QueryStart<Request>) -> StartedFetch<Response> {
        guard let started = self.start(start, awaited: true) else {
            preconditionFailure("an awaited start answers")
        }
        return started
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

/// A fetch a query starts, as a value (`Query.start(_:awaited:)`): the request, why, what the entry is asked
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
