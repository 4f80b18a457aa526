/// The typed view of a cache entry that one query, consumer or selection holds: the entry's `Source` data
/// through the query's `select` and a projection to `Value`, with placeholder data, computed when read and
/// cached until the entry or the options change.
///
/// It never copies the entry's state: every snapshot is derived from the entry's, so a query and a consumer
/// of one key always agree. `select` and the projection run once per new data (per `dataVersion`), not per
/// read, and not again when a refetch returns an equal value.
final class QueryObservation<Source: Sendable, Value: Sendable>: Sendable {
    private struct State: Sendable {
        var options: QueryOptions<Source>
        /// The options resolved for the current key.
        var resolved: ResolvedQueryOptions
        var resolvedKey: QueryKey
        /// Bumped when the options change, so that cached views are recomputed.
        var optionsVersion: UInt64 = 0
        /// The typed snapshot and the core and options versions it was computed from.
        var cached: (version: UInt64, options: UInt64, snapshot: QuerySnapshot<Value>)?
        /// The last selected value, and the data it was selected from.
        var selected: (entry: ObjectIdentifier, dataVersion: UInt64, options: UInt64, value: Value)?
        /// The typed publisher, created when first asked for.
        var feed: OrderedSubject<QuerySnapshot<Value>>?
        /// The last snapshot sent, and the core version it came from.
        var lastSent: (version: UInt64, snapshot: QuerySnapshot<Value>)?
        var callbacks = ObserverCallbacks()
    }

    let core: ObservationCore
    private let project: @Sendable (Source) -> Value
    private let state: Locked<State>

    var client: QueryClient { core.client }

    init(
        client: QueryClient, options: QueryOptions<Source>, key: QueryKey,
        project: @escaping @Sendable (Source) -> Value
    ) {
        self.project = project
        let resolved = ResolvedQueryOptions(options, defaults: client.defaults(for: key))
        state = Locked(State(options: options, resolved: resolved, resolvedKey: key))
        core = ObservationCore(client: client, key: key)
        core.setObserverFactory { [weak self] key in
            self?.entryObserver(for: key) ?? EntryObserver(isEnabled: false)
        }
    }

    /// Sets how the entry makes this observer refetch (a query's; a consumer has none).
    func setCallbacks(_ callbacks: ObserverCallbacks) {
        state.withLock { $0.callbacks = callbacks }
    }

    /// Called after each change once the state has been read; the owner notifies its registrar.
    func onChange(_ notify: @escaping @Sendable () -> Void) {
        core.onChange(notify)
    }

    var options: QueryOptions<Source> {
        state.withLock { $0.options }
    }

    /// The options resolved for the current key.
    var resolved: ResolvedQueryOptions {
        settings(for: core.key).resolved
    }

    /// The options as one read needs them.
    private struct Settings {
        let options: QueryOptions<Source>
        let version: UInt64
        let resolved: ResolvedQueryOptions
        let cached: (version: UInt64, options: UInt64, snapshot: QuerySnapshot<Value>)?
    }

    /// The options, their version, the options resolved for `key` and the cached view, in one lock; the key's
    /// defaults are looked up outside it, only when the key changed.
    private func settings(for key: QueryKey) -> Settings {
        let (read, isCurrent) = state.withLock { state in
            let read = Settings(
                options: state.options, version: state.optionsVersion, resolved: state.resolved,
                cached: state.cached)
            return (read, state.resolvedKey == key)
        }
        guard !isCurrent else { return read }
        let resolved = ResolvedQueryOptions(read.options, defaults: client.defaults(for: key))
        state.withLock { state in
            guard state.optionsVersion == read.version else { return }
            state.resolved = resolved
            state.resolvedKey = key
        }
        return Settings(options: read.options, version: read.version, resolved: resolved, cached: read.cached)
    }

    /// Replaces the options; the entry learns of the change, and the view is recomputed and published.
    func setOptions(_ options: QueryOptions<Source>) {
        let key = core.key
        let resolved = ResolvedQueryOptions(options, defaults: client.defaults(for: key))
        state.withLock { state in
            state.options = options
            state.resolved = resolved
            state.resolvedKey = key
            state.optionsVersion += 1
        }
        core.refreshObserver()
    }

    /// The current snapshot, its staleness computed now.
    var snapshot: QuerySnapshot<Value> {
        typedSnapshot(markingRead: true)
    }

    var key: QueryKey { core.key }
    var entry: QueryCacheEntry? { core.entry }
    var observerID: UInt64? { core.observerID }

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

    /// Observes the entry of `key`; returns it and this observer's id in it.
    @discardableResult
    func attach(to key: QueryKey) -> QueryCacheEntry {
        core.attach(to: key)
    }

    func detach() {
        core.detach()
    }

    private func entryObserver(for key: QueryKey) -> EntryObserver {
        let settings = settings(for: key)
        let callbacks = state.withLock { $0.callbacks }
        let options = settings.options
        let initialData = options.initialData.map {
            Boxed(EntryObserver.InitialData(value: $0, updatedAt: options.initialDataUpdatedAt))
        }
        return settings.resolved.observer(callbacks, initialData: initialData)
    }

    private func typedSnapshot(markingRead: Bool) -> QuerySnapshot<Value> {
        let current = core.current(markingRead: markingRead)
        let now = client.scheduler.now
        let settings = settings(for: current.key)
        let (resolved, optionsVersion) = (settings.resolved, settings.version)
        if let cached = settings.cached, cached.version == current.version, cached.options == optionsVersion {
            guard current.entry != nil, !cached.snapshot.isPlaceholderData else { return cached.snapshot }
            let isStale = EntryStateMachine.isStale(
                current.raw, staleTime: resolved.staleTime, isEnabled: resolved.isEnabled, at: now)
            return cached.snapshot.withStaleness(isStale)
        }
        let snapshot = makeSnapshot(current, settings, now: now)
        state.withLock { state in
            if (state.cached?.version ?? 0) <= current.version, state.optionsVersion == optionsVersion {
                state.cached = (current.version, optionsVersion, snapshot)
            }
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

    private func makeSnapshot(
        _ current: ObservationCore.Current, _ settings: Settings, now: SchedulerInstant
    ) -> QuerySnapshot<Value> {
        let entry = current.raw
        let isStale = EntryStateMachine.isStale(
            entry, staleTime: settings.resolved.staleTime, isEnabled: settings.resolved.isEnabled, at: now)
        var data: Value?
        do {
            data = try selectedData(current, settings)
        } catch {
            // The key holds another type: show the typed error instead of crashing.
            return QuerySnapshot(
                key: current.key, data: nil, error: error, status: .error, fetchStatus: entry.fetchStatus,
                dataUpdatedAt: entry.dataUpdatedAt, isStale: true, isPlaceholderData: false,
                failureCount: entry.failureCount)
        }
        let snapshot = QuerySnapshot(
            key: current.key, data: data, error: entry.error, status: entry.status, fetchStatus: entry.fetchStatus,
            dataUpdatedAt: entry.dataUpdatedAt, isStale: isStale, isPlaceholderData: false,
            failureCount: entry.failureCount, isRestored: entry.isRestored)
        // Placeholder data shows only while there is neither data nor an error, through `select`.
        guard entry.status == .pending, data == nil, let placeholder = placeholder(current, settings.options) else {
            return snapshot
        }
        return QuerySnapshot(
            key: current.key, data: placeholder, error: nil, status: .success, fetchStatus: entry.fetchStatus,
            dataUpdatedAt: nil, isStale: isStale, isPlaceholderData: true, failureCount: entry.failureCount)
    }

    /// The entry's data through `select` and the projection, computed once per data version.
    private func selectedData(_ current: ObservationCore.Current, _ settings: Settings) throws -> Value? {
        guard let raw = current.raw.data, let entry = current.entry else { return nil }
        let identity = ObjectIdentifier(entry)
        let dataVersion = current.raw.dataVersion
        if let selected = state.withLock({ $0.selected }), selected.entry == identity,
            selected.dataVersion == dataVersion, selected.options == settings.version
        {
            return selected.value
        }
        let value = transform(try cast(raw, to: Source.self, key: current.key), settings.options)
        state.withLock { $0.selected = (identity, dataVersion, settings.version, value) }
        return value
    }

    private func placeholder(_ current: ObservationCore.Current, _ options: QueryOptions<Source>) -> Value? {
        guard let placeholder = options.placeholderData else { return nil }
        let previous = current.previousData.flatMap { try? cast($0, to: Source.self, key: current.key) }
        let value: Source? =
            switch placeholder {
            case .value(let value): value
            case .keepPrevious: previous
            case .compute(let compute): compute(previous)
            }
        return value.map { transform($0, options) }
    }

    private func transform(_ source: Source, _ options: QueryOptions<Source>) -> Value {
        project(options.select.map { $0(source) } ?? source)
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
