/// What one query, consumer or selection observes: the cache entry of its key, the typed view of that entry it
/// follows (shared with the other observers of the entry that have the same type and options), shown through
/// a `ViewObserver`, whose readers and subscribers follow it from view to view.
///
/// It never copies the entry's state: every snapshot comes from the entry's, so a query and a consumer of one
/// key always agree. A read of `value` costs a lock and a field read; a change of the entry is turned into a
/// typed snapshot once per view, and reaches the subscribers of every observer of the view in one pass.
@usableFromInline
final class QueryObservation<Source: Sendable, Value: Sendable>: Sendable {
    private struct Attachment: Sendable {
        let entry: QueryCacheEntry
        let observerID: UInt64
        let view: EntryView<Value>
        /// The identity under which the entry shares the view; nil for a view of this observer's own.
        let identity: ViewIdentity?
    }

    private struct State: Sendable {
        var options: QueryOptions<Source>
        /// The options resolved for `resolvedKey`.
        var resolved: ResolvedQueryOptions
        var resolvedKey: QueryKey
        var key: QueryKey
        var attachment: Attachment?
        var callbacks = ObserverCallbacks()
        /// The data shown for the previous key, for `PlaceholderData.keepPrevious`.
        var previousData: (any Sendable)?
        /// Waiting for the next entry of the key after the current one was removed.
        var isOrphaned = false
    }

    let client: QueryClient
    /// What the owner's `state` and `snapshot` read, and its publishers' subscribers.
    let observer: ViewObserver<Value>
    /// What the owner's `state` and `snapshot` read: a `SnapshotBox<Value>` (the observer's).
    @usableFromInline let value: ObservedValue
    /// The projection to `Value`; nil when `Value` is `Source` itself (a query's and a consumer's).
    private let project: (@Sendable (Source) -> Value)?
    private let state: Locked<State>

    init(
        client: QueryClient, options: QueryOptions<Source>, key: QueryKey,
        project: (@Sendable (Source) -> Value)?
    ) {
        self.client = client
        self.project = project
        let resolved = ResolvedQueryOptions(options, defaults: client.defaults(for: key))
        state = Locked(State(options: options, resolved: resolved, resolvedKey: key, key: key))
        observer = ViewObserver(showing: SnapshotBox(QuerySnapshot<Value>.empty(key: key)))
        value = observer.value
    }

    /// Sets how the entry makes this observer refetch (a query's; a consumer has none).
    func setCallbacks(_ callbacks: ObserverCallbacks) {
        state.withLock { $0.callbacks = callbacks }
    }

    var options: QueryOptions<Source> {
        state.withLock { $0.options }
    }

    var key: QueryKey {
        state.withLock { $0.key }
    }

    var entry: QueryCacheEntry? {
        state.withLock { $0.attachment?.entry }
    }

    /// The id of this observer in the entry it observes.
    var observerID: UInt64? {
        state.withLock { $0.attachment?.observerID }
    }

    /// The options resolved for the current key.
    var resolved: ResolvedQueryOptions {
        resolved(for: key).resolved
    }

    /// The options and the options resolved for `key`; the key's defaults are looked up outside the lock, only
    /// when the key changed.
    private func resolved(for key: QueryKey) -> (options: QueryOptions<Source>, resolved: ResolvedQueryOptions) {
        let (options, resolved, isCurrent) = state.withLock { ($0.options, $0.resolved, $0.resolvedKey == key) }
        guard !isCurrent else { return (options, resolved) }
        let fresh = ResolvedQueryOptions(options, defaults: client.defaults(for: key))
        return (options, fresh)
    }

    /// Replaces the options: the entry learns of the change, and the observer moves to the view they call for.
    func setOptions(_ options: QueryOptions<Source>) {
        let (key, attachment) = state.withLock { ($0.key, $0.attachment) }
        let resolved = ResolvedQueryOptions(options, defaults: client.defaults(for: key))
        state.withLock { state in
            state.options = options
            state.resolved = resolved
            state.resolvedKey = key
        }
        guard let attachment else { return }
        tag(attachment.entry)
        attachment.entry.setObserver(attachment.observerID, record(for: attachment.entry))
        let (view, identity) = makeView(for: attachment.entry)
        let next = Attachment(
            entry: attachment.entry, observerID: attachment.observerID, view: view, identity: identity)
        let isCurrent = state.withLock { state -> Bool in
            guard state.attachment?.observerID == attachment.observerID else { return false }
            state.attachment = next
            return true
        }
        guard isCurrent else {
            release(view, identity, of: attachment.entry)
            return
        }
        observer.follow(view.channel)
        release(attachment.view, attachment.identity, of: attachment.entry)
    }

    // MARK: - Reading

    /// The current snapshot, without telling observation tracking.
    var snapshot: QuerySnapshot<Value> {
        observer.box.snapshot
    }

    /// Every change of the snapshot, in order; a new subscriber gets the current one first.
    var snapshots: AnyPublisher<QuerySnapshot<Value>, Never> {
        observer.snapshots
    }

    /// Every change of `state`, starting with the current one.
    var statePublisher: AnyPublisher<QueryState<Value>, Never> {
        observer.statePublisher
    }

    /// Every new value, starting with the current one if there is one.
    var valuePublisher: AnyPublisher<Value, Never> {
        observer.valuePublisher
    }

    // MARK: - Attaching

    /// What a fetch needs of this observer for `key`, read in one step while the observer already follows the
    /// key's live entry; otherwise it attaches first (`isNewAttachment`).
    func fetchContext(for key: QueryKey) -> ObserverFetchContext {
        let current = state.withLock { state -> ObserverFetchContext? in
            guard let attachment = state.attachment, attachment.entry.key == key, state.resolvedKey == key else {
                return nil
            }
            return ObserverFetchContext(
                entry: attachment.entry, observerID: attachment.observerID, resolved: state.resolved,
                isNewAttachment: false)
        }
        if let current, !current.entry.isRemoved { return current }
        let entry = attach(to: key)
        return ObserverFetchContext(
            entry: entry, observerID: observerID, resolved: resolved(for: key).resolved, isNewAttachment: true)
    }

    /// Observes the entry of `key` (leaving the previous one, or a removed one of the same key); returns it.
    @discardableResult
    func attach(to key: QueryKey) -> QueryCacheEntry {
        if let current = entry, current.key == key, !current.isRemoved { return current }
        detach()
        let entry = client.entry(for: key)
        tag(entry)
        let observerID = entry.addObserver(record(for: entry))
        let (view, identity) = makeView(for: entry)
        let attachment = Attachment(entry: entry, observerID: observerID, view: view, identity: identity)
        let isCurrent = state.withLock { state -> Bool in
            guard state.attachment == nil else { return false }
            state.attachment = attachment
            state.key = key
            return true
        }
        guard isCurrent else {
            entry.removeObserver(observerID)
            release(view, identity, of: entry)
            return entry
        }
        observer.follow(view.channel)
        return entry
    }

    /// Stops observing; the entry may then be garbage-collected. The publishers' subscribers stay, to follow
    /// the next entry attached.
    func detach() {
        let attachment = state.withLock { state -> Attachment? in
            defer { state.attachment = nil }
            return state.attachment
        }
        guard let attachment else { return }
        if let data = attachment.entry.snapshot.data {
            state.withLock { $0.previousData = data }
        }
        attachment.entry.removeObserver(attachment.observerID)
        release(attachment.view, attachment.identity, of: attachment.entry)
    }

    /// The owner goes: every subscriber leaves its view.
    func close() {
        detach()
        observer.close()
    }

    /// The view `entry` shares for this observer's type and options, or one of its own when `select`,
    /// placeholder data or a projection make what it sees its own.
    private func makeView(for entry: QueryCacheEntry) -> (EntryView<Value>, ViewIdentity?) {
        let (options, resolved) = resolved(for: entry.key)
        let previousData = state.withLock { $0.previousData }
        let project = project
        let select = options.select
        let inheritsStaleTime = !resolved.judgesFreshness(state.withLock { $0.callbacks })
        let configuration = EntryView<Value>.Configuration(
            staleTime: resolved.staleTime, inheritsStaleTime: inheritsStaleTime, isEnabled: resolved.isEnabled,
            transform: { raw, key in
                guard project != nil || select != nil else { return try cast(raw, to: Value.self, key: key) }
                return try Self.transform(try cast(raw, to: Source.self, key: key), select, project, key: key)
            },
            placeholder: Self.placeholder(options.placeholderData, previousData, select, project, key: entry.key))
        guard project == nil, select == nil, options.placeholderData == nil else {
            return (EntryView(entry: entry, configuration: configuration, client: client), nil)
        }
        let identity = ViewIdentity(
            valueType: ObjectIdentifier(Value.self), staleTime: resolved.staleTime,
            inheritsStaleTime: inheritsStaleTime, isEnabled: resolved.isEnabled)
        let client = client
        let view = entry.acquireView(identity) {
            EntryView<Value>(entry: entry, configuration: configuration, client: client)
        }
        // The identity names the type, so the view shared under it is an `EntryView<Value>`.
        return (ErasedObject.cast(view, to: EntryView<Value>.self), identity)
    }

    private func release(_ view: EntryView<Value>, _ identity: ViewIdentity?, of entry: QueryCacheEntry) {
        if let identity {
            entry.releaseView(identity)
        } else {
            view.close()
        }
    }

    /// Makes the placeholder data of a view, from the data shown for the previous key.
    private static func placeholder(
        _ placeholder: PlaceholderData<Source>?, _ previousData: (any Sendable)?,
        _ select: (@Sendable (Source) -> Source)?, _ project: (@Sendable (Source) -> Value)?, key: QueryKey
    ) -> (@Sendable () -> Value?)? {
        guard let placeholder else { return nil }
        return {
            let previous = previousData.flatMap { $0 as? Source }
            let value: Source? =
                switch placeholder {
                case .value(let value): value
                case .keepPrevious: previous
                case .compute(let compute): compute(previous)
                }
            return value.flatMap { try? transform($0, select, project, key: key) }
        }
    }

    /// `select`, then the projection; without one, `Value` is `Source`, which the cast checks.
    private static func transform(
        _ source: Source, _ select: (@Sendable (Source) -> Source)?, _ project: (@Sendable (Source) -> Value)?,
        key: QueryKey
    ) throws -> Value {
        let selected = select.map { $0(source) } ?? source
        if let project { return project(selected) }
        return try cast(selected, to: Value.self, key: key)
    }

    /// Gives `entry` the tags of this observer's options for its key.
    private func tag(_ entry: QueryCacheEntry) {
        let tags = state.withLock { $0.options.tags }
        if !tags.isEmpty { client.tag(entry, with: tags) }
    }

    /// What `entry` knows of this observer: its options for the entry's key, its callbacks, and a hook that
    /// follows the key when the entry is removed.
    private func record(for entry: QueryCacheEntry) -> EntryObserver {
        let (options, resolved) = resolved(for: entry.key)
        let callbacks = state.withLock { $0.callbacks }
        let initialData = options.initialData.map {
            Boxed(EntryObserver.InitialData(value: $0, updatedAt: options.initialDataUpdatedAt))
        }
        var observer = resolved.observer(callbacks, initialData: initialData)
        // The entry is named by identity: a weak reference to it would slow every retain and release of it.
        let identity = ObjectIdentifier(entry)
        observer.entryRemoved = { [weak self] in self?.adoptNextEntry(after: identity) }
        return observer
    }

    /// The entry observed was removed: follow the key to the next entry made for it (by the next fetch).
    private func adoptNextEntry(after removed: ObjectIdentifier) {
        let key = state.withLock { state -> QueryKey? in
            guard state.attachment.map({ ObjectIdentifier($0.entry) }) == removed, !state.isOrphaned else {
                return nil
            }
            state.isOrphaned = true
            return state.key
        }
        guard let key else { return }
        client.whenEntryIsMade(for: key) { [weak self] _ in
            guard let self else { return }
            let isStillOrphaned = state.withLock { state -> Bool in
                defer { state.isOrphaned = false }
                return state.attachment.map { ObjectIdentifier($0.entry) } == removed
            }
            if isStillOrphaned { attach(to: key) }
        }
    }
}

/// What a fetch of an observer needs, read in one step (`QueryObservation.fetchContext(for:)`). Not nested in
/// the generic observation, so that making one looks up no generic metadata.
struct ObserverFetchContext: Sendable {
    let entry: QueryCacheEntry
    /// The observer's id in the entry; nil when another thread detached it meanwhile.
    let observerID: UInt64?
    let resolved: ResolvedQueryOptions
    /// Whether the observer attached to the entry just now (the caller then applies initial data and
    /// persistence).
    let isNewAttachment: Bool
}
