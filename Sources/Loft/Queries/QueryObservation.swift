/// The typed view of a cache entry that one `Query` or `Consumer` holds: `select` and placeholder data applied
/// to the entry's state, computed when read and cached until the entry changes.
///
/// It never copies the entry's state: every snapshot is derived from the entry's, so a query and a consumer
/// of one key always agree.
final class QueryObservation<Value: Sendable>: Sendable {
    private struct State: Sendable {
        /// The typed snapshot and the core version it was computed from.
        var cached: (version: UInt64, snapshot: QuerySnapshot<Value>)?
        /// The typed publisher, created when first asked for.
        var feed: OrderedSubject<QuerySnapshot<Value>>?
        /// The last snapshot sent, and the core version it came from.
        var lastSent: (version: UInt64, snapshot: QuerySnapshot<Value>)?
    }

    let core: ObservationCore
    let options: QueryOptions<Value>
    let staleTime: Duration
    private let state = Locked(State())

    var client: QueryClient { core.client }

    init(client: QueryClient, options: QueryOptions<Value>, key: QueryKey) {
        self.options = options
        staleTime = options.staleTime ?? client.defaults.staleTime
        core = ObservationCore(client: client, key: key, gcTime: options.gcTime ?? client.defaults.gcTime)
    }

    /// Called after each change once the state has been read; the owner notifies its registrar.
    func onChange(_ notify: @escaping @Sendable () -> Void) {
        core.onChange(notify)
    }

    /// The current snapshot, its staleness computed now.
    var snapshot: QuerySnapshot<Value> {
        typedSnapshot(markingRead: true)
    }

    var key: QueryKey { core.key }
    var entry: QueryCacheEntry? { core.entry }

    /// Every change of the snapshot, in order; a new subscriber gets the current one first.
    var snapshots: AnyPublisher<QuerySnapshot<Value>, Never> {
        let (feed, isNew) = state.withLock { state -> (OrderedSubject<QuerySnapshot<Value>>, Bool) in
            if let feed = state.feed { return (feed, false) }
            let feed = OrderedSubject(QuerySnapshot<Value>.empty(key: core.key))
            state.feed = feed
            return (feed, true)
        }
        if isNew {
            core.setTypedListener { [weak self] in self?.publish() }
            publish()
        }
        return feed.subject.eraseToAnyPublisher()
    }

    /// Every change of `state`, starting with the current one.
    var statePublisher: AnyPublisher<QueryState<Value>, Never> {
        snapshots.map(\.state).removeDuplicates { $0.isSame(as: $1) }.eraseToAnyPublisher()
    }

    /// Every new value, starting with the current one if there is one.
    var valuePublisher: AnyPublisher<Value, Never> {
        snapshots.compactMap(\.data).removeDuplicates { areEqual($0, $1) }.eraseToAnyPublisher()
    }

    @discardableResult
    func attach(to key: QueryKey, as observer: QueryCacheEntry.Observer) -> QueryCacheEntry {
        core.attach(to: key, as: observer)
    }

    func detach() {
        core.detach()
    }

    private func typedSnapshot(markingRead: Bool) -> QuerySnapshot<Value> {
        let current = core.current(markingRead: markingRead)
        let now = client.scheduler.now
        if let cached = state.withLock({ $0.cached }), cached.version == current.version {
            guard current.entry != nil, !cached.snapshot.isPlaceholderData else { return cached.snapshot }
            return cached.snapshot.withStaleness(current.raw.isStale(at: now, staleTime: staleTime))
        }
        let snapshot = makeSnapshot(current, now: now)
        state.withLock { state in
            if (state.cached?.version ?? 0) < current.version { state.cached = (current.version, snapshot) }
        }
        return snapshot
    }

    /// Sends the current snapshot to the typed publisher if it is newer than, and differs from, the last one
    /// sent. Enqueued under the lock, so concurrent calls cannot reorder what subscribers see.
    private func publish() {
        let version = core.current(markingRead: false).version
        let next = typedSnapshot(markingRead: false)
        let (feed, mustDrain) = state.withLock { state -> (OrderedSubject<QuerySnapshot<Value>>?, Bool) in
            if let last = state.lastSent {
                guard last.version < version, Self.differ(last.snapshot, next) else { return (nil, false) }
            }
            state.lastSent = (version, next)
            return (state.feed, state.feed?.enqueue(next) ?? false)
        }
        if mustDrain { feed?.drain() }
    }

    private static func differ(_ old: QuerySnapshot<Value>, _ next: QuerySnapshot<Value>) -> Bool {
        !old.state.isSame(as: next.state) || old.isPlaceholderData != next.isPlaceholderData || old.key != next.key
            || old.status != next.status || old.fetchStatus != next.fetchStatus
            || old.failureCount != next.failureCount || old.dataUpdatedAt != next.dataUpdatedAt
            || old.isStale != next.isStale || (old.error == nil) != (next.error == nil)
            || old.isRestored != next.isRestored
    }

    private func makeSnapshot(_ current: ObservationCore.Current, now: SchedulerInstant) -> QuerySnapshot<Value> {
        let entry = current.raw
        var snapshot: QuerySnapshot<Value>
        do {
            snapshot = try QuerySnapshot(key: current.key, entry: entry, staleTime: staleTime, now: now)
        } catch {
            // The key holds another type: show the typed error instead of crashing.
            return QuerySnapshot(
                key: current.key, data: nil, error: error, status: .error, fetchStatus: entry.fetchStatus,
                dataUpdatedAt: entry.dataUpdatedAt, isStale: true, isPlaceholderData: false,
                failureCount: entry.failureCount)
        }
        if let data = snapshot.data, let select = options.select {
            snapshot = snapshot.replacingData(select(data), isPlaceholder: false)
        }
        if snapshot.data == nil, let placeholder = options.placeholderData {
            let previous = current.previousData as? Value
            let value: Value? =
                switch placeholder {
                case .value(let value): value
                case .keepPrevious: previous
                case .compute(let compute): compute(previous)
                }
            if let value { snapshot = snapshot.replacingData(value, isPlaceholder: true) }
        }
        return snapshot
    }
}

extension QuerySnapshot {
    /// This snapshot with its staleness recomputed.
    func withStaleness(_ isStale: Bool) -> QuerySnapshot<Value> {
        QuerySnapshot(
            key: key, data: data, error: error, status: status, fetchStatus: fetchStatus,
            dataUpdatedAt: dataUpdatedAt, isStale: isStale, isPlaceholderData: isPlaceholderData,
            failureCount: failureCount, isRestored: isRestored)
    }
}
