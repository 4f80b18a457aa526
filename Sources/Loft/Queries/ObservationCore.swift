import Synchronization

/// The untyped half of a query's or consumer's observation: which entry it observes, the entry's latest
/// snapshot, and who must hear of a change.
///
/// It is not generic on purpose: with 10,000 observers of one key, each change reaches each observer, and
/// unspecialised generic code would spend most of that time looking up generic metadata. The typed view is
/// computed only when read (`QueryObservation.snapshot`) or when someone subscribed to a typed publisher.
final class ObservationCore: Sendable {
    struct Attachment: Sendable {
        let entry: QueryCacheEntry
        let observerID: UInt64
        let subscription: Subscription
    }

    private struct State: Sendable {
        var key: QueryKey
        var attachment: Attachment?
        /// The data shown for the previous key, for `PlaceholderData.keepPrevious`.
        var previousData: (any Sendable)?
        /// Whether anything read the state: before that, no observation tracking can be waiting for a change.
        var hasBeenRead = false
        var typedListener: (@Sendable () -> Void)?
        var onChange: (@Sendable () -> Void)?
        /// Makes what the entry's state machine knows of this observer, for a key.
        var makeObserver: (@Sendable (QueryKey) -> EntryObserver)?
        /// Waiting for the next entry of the key after the current one was removed.
        var isOrphaned = false
    }

    let client: QueryClient
    private let state: Locked<State>
    /// Bumped on every change of the entry (or of which entry), so that a typed view knows whether its cache is
    /// current. Atomic so that a change reaching an observer nobody listens to takes no lock.
    private let version = Atomic<UInt64>(0)
    /// Whether a change must be told to someone (a typed publisher, or an observation registrar after a read).
    private let wantsNotifications = Atomic<Bool>(false)

    init(client: QueryClient, key: QueryKey) {
        self.client = client
        state = Locked(State(key: key))
    }

    /// Sets how the observer record of a key is made (its options may depend on the key's defaults).
    func setObserverFactory(_ make: @escaping @Sendable (QueryKey) -> EntryObserver) {
        state.withLock { $0.makeObserver = make }
    }

    /// Tells the entry observed that this observer's options changed.
    func refreshObserver() {
        let (attachment, make) = state.withLock { ($0.attachment, $0.makeObserver) }
        guard let attachment, let make else { return }
        attachment.entry.setObserver(attachment.observerID, record(for: attachment.entry, make))
        version.add(1, ordering: .releasing)
        notify()
    }

    /// The id of this observer in the entry it observes.
    var observerID: UInt64? {
        state.withLock { $0.attachment?.observerID }
    }

    /// What a typed view is derived from.
    struct Current {
        let key: QueryKey
        let raw: EntrySnapshot
        let version: UInt64
        let previousData: (any Sendable)?
        let entry: QueryCacheEntry?
    }

    /// The current raw state; `markingRead` records that someone reads it (and may be tracking it).
    func current(markingRead: Bool) -> Current {
        let (key, version, previousData, entry) = state.withLock { state in
            if markingRead, !state.hasBeenRead {
                state.hasBeenRead = true
                if state.onChange != nil { wantsNotifications.store(true, ordering: .releasing) }
            }
            return (state.key, self.version.load(ordering: .acquiring), state.previousData, state.attachment?.entry)
        }
        return Current(
            key: key, raw: entry?.snapshot ?? EntrySnapshot(), version: version, previousData: previousData,
            entry: entry)
    }

    var entry: QueryCacheEntry? {
        state.withLock { $0.attachment?.entry }
    }

    var key: QueryKey {
        state.withLock { $0.key }
    }

    /// Called after each change when the state has been read (the owner notifies its registrar).
    func onChange(_ notify: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.onChange = notify
            if state.hasBeenRead { wantsNotifications.store(true, ordering: .releasing) }
        }
    }

    /// Called after each change once a typed publisher is in use.
    func setTypedListener(_ listener: @escaping @Sendable () -> Void) {
        state.withLock { $0.typedListener = listener }
        wantsNotifications.store(true, ordering: .releasing)
    }

    /// Observes the entry of `key` (leaving the previous one, or a removed one of the same key); returns it.
    @discardableResult
    func attach(to key: QueryKey) -> QueryCacheEntry {
        if let current = entry, current.key == key, !current.isRemoved { return current }
        detach()
        let entry = client.entry(for: key)
        guard let make = state.withLock({ $0.makeObserver }) else { return entry }
        let observerID = entry.addObserver(record(for: entry, make))
        var changes = entry.changes.eraseToAnyPublisher()
        if !(client.deliveryScheduler is ImmediateScheduler) {
            changes = changes.receive(on: client.deliveryScheduler).eraseToAnyPublisher()
        }
        let placeholder = Attachment(entry: entry, observerID: observerID, subscription: Subscription())
        let isCurrent = state.withLock { state -> Bool in
            guard state.attachment == nil else { return false }
            state.attachment = placeholder
            state.key = key
            version.add(1, ordering: .releasing)
            return true
        }
        guard isCurrent else {
            entry.removeObserver(observerID)
            return entry
        }
        // A strong capture: `detach()` (called when the owner goes) cancels the sink and breaks the cycle.
        let sink = changes.sink { [self] _ in receive(from: entry) }
        let kept = state.withLock { state -> Bool in
            guard state.attachment?.entry === entry else { return false }
            state.attachment = Attachment(entry: entry, observerID: observerID, subscription: sink)
            return true
        }
        if !kept { sink.cancel() }
        notify()
        return entry
    }

    /// Stops observing; the entry may then be garbage-collected.
    func detach() {
        let attachment = state.withLock { state -> Attachment? in
            defer { state.attachment = nil }
            return state.attachment
        }
        guard let attachment else { return }
        if let data = attachment.entry.snapshot.data {
            state.withLock { $0.previousData = data }
        }
        attachment.subscription.cancel()
        attachment.entry.removeObserver(attachment.observerID)
    }

    private func receive(from entry: QueryCacheEntry) {
        version.add(1, ordering: .releasing)
        guard wantsNotifications.load(ordering: .acquiring) else { return }
        let listeners = state.withLock {
            state -> (typed: (@Sendable () -> Void)?, onChange: (@Sendable () -> Void)?)? in
            guard state.attachment?.entry === entry else { return nil }
            return (state.typedListener, state.hasBeenRead ? state.onChange : nil)
        }
        listeners?.typed?()
        listeners?.onChange?()
    }

    /// What `entry` knows of this observer: the owner's options for its key, and a hook that follows the key
    /// when the entry is removed.
    private func record(
        for entry: QueryCacheEntry, _ make: @Sendable (QueryKey) -> EntryObserver
    ) -> EntryObserver {
        var observer = make(entry.key)
        // A strong capture, as the sink's: `detach()` removes the observer and breaks the cycle. The entry is
        // named by identity: a weak reference would slow every retain and release of it.
        let identity = ObjectIdentifier(entry)
        observer.entryRemoved = { [self] in adoptNextEntry(after: identity) }
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

    private func notify() {
        let (typed, onChange) = state.withLock { state in
            (state.typedListener, state.hasBeenRead ? state.onChange : nil)
        }
        typed?()
        onChange?()
    }
}
