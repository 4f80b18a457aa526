import Dispatch

/// Writes the values of a client's entries to their persistent caches behind the caller: one writer per
/// client, on a serial queue of its own, counted by the client's work tracker.
///
/// A save is queued under its key (and the cache it goes to) and the caller returns at once; the writer
/// encodes and writes the queued values, keys in the order their first queued save came: the saves queued for
/// one local cache one after another go to it in one call (`QueryCacheType.save(_:)`, one transaction in a
/// database), a burst of at most `burstLimit`; a network provider's are awaited one at a time in a task, so
/// that no thread waits for it. A
/// newer save of a key replaces the one still queued, so only the latest value of a key is written; an entry
/// queues its saves while it holds its lock, so they reach the writer in the order of its changes. Until a
/// value is written, a read of its key through the writer (`pending`) gets it, so an entry made again for the
/// key restores the latest value, not the one on disk.
///
/// **Behavior**
/// - Each value written is sent on the client's events as `saved`, a failure to save as `persistenceFailed`;
///   the other saves go on.
/// - `waitUntilIdle()` waits for the writer (it is tracked work), and so does `flush()`.
/// - A crash of the process loses the values still queued, at most; what was written keeps the cache's
///   own guarantees (a whole old or new record).
package final class PersistenceWriter: Sendable {
    /// A key in one cache: saves of one key to two caches are two queues.
    package struct Slot: Hashable, Sendable {
        let key: QueryKey
        let cache: ObjectIdentifier?
    }

    /// A value waiting to be written.
    package struct Save: Sendable {
        package let value: any Sendable
        package let savedAt: SchedulerInstant
        let persistence: EntryPersistence
    }

    private struct State: Sendable {
        var queued: [Slot: Save] = [:]
        var order = FIFO<Slot>()
        /// The saves being written (the burst in hand), readable until they are on disk.
        var writing: [(slot: Slot, save: Save)] = []
        var isDraining = false
        var flushWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "loft.persistence-writer")
    private let tracker: WorkTracker
    private let events: PassthroughSubject<QueryCacheEvent, Never>

    package init(tracker: WorkTracker, events: PassthroughSubject<QueryCacheEvent, Never>) {
        self.tracker = tracker
        self.events = events
    }

    /// Queues `value` as `key`'s latest value in `persistence`'s cache, replacing one still queued. Called with
    /// the entry's lock held (it only takes the writer's own lock); returns true when the caller must `start()`
    /// the writer once it has released its lock.
    package func enqueue(
        _ value: any Sendable, for key: QueryKey, at savedAt: SchedulerInstant, to persistence: EntryPersistence
    ) -> Bool {
        let slot = Slot(key: key, cache: persistence.cacheIdentity)
        let save = Save(value: value, savedAt: savedAt, persistence: persistence)
        return state.withLock { state in
            if state.queued.updateValue(save, forKey: slot) == nil { state.order.append(slot) }
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
    }

    /// Starts writing what is queued, on the writer's queue; call once for each `enqueue` that returned true.
    package func start() {
        tracker.dispatch(on: queue) { self.drain() }
    }

    /// The latest value of `key` for `persistence`'s cache that is not written yet.
    package func pending(_ key: QueryKey, in persistence: EntryPersistence) -> Save? {
        let slot = Slot(key: key, cache: persistence.cacheIdentity)
        return state.withLock { state in
            if let queued = state.queued[slot] { return queued }
            return state.writing.last { $0.slot == slot }?.save
        }
    }

    /// Returns once nothing is queued or being written (every save made before the call, and any made
    /// meanwhile, is written or has failed).
    package func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = state.withLock { state -> Bool in
                guard state.isDraining else { return true }
                state.flushWaiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    /// Whether anyone listens to the client's events: a `saved` event is sent only then.
    private var isHeard: Bool {
        events.subscriberCount > 0
    }

    /// The most saves handed to a cache in one call: a burst large enough that a database's transaction costs
    /// little per value, small enough that a flush waiting behind it waits little.
    package static let burstLimit = 256

    /// Writes queued saves until none is left. A save to a network provider is awaited in a tracked task,
    /// which drains the rest on the queue once it is written: the queue's thread never waits for a network.
    private func drain() {
        while let burst = nextBurst() {
            guard case .local(let cache) = burst[0].save.persistence.provider else {
                let (slot, save) = burst[0]
                tracker.spawn { [self] in
                    do throws(CacheError) {
                        try await save.persistence.saveAwaiting(save.value, for: slot.key, at: save.savedAt)
                        if isHeard { events.send(.saved(slot.key)) }
                    } catch {
                        events.send(.persistenceFailed(slot.key, error: error))
                    }
                    start()
                }
                return
            }
            write(burst, to: cache)
        }
    }

    /// Encodes a burst of saves to one local cache and hands it over in one call; reports each failure.
    private func write(_ burst: [(slot: Slot, save: Save)], to cache: any QueryCacheType) {
        var failures: [QueryKey: CacheError] = [:]
        var writes: [CacheWrite] = []
        writes.reserveCapacity(burst.count)
        for (slot, save) in burst {
            do throws(CacheError) {
                writes.append(try save.persistence.write(save.value, for: slot.key, at: save.savedAt))
            } catch {
                failures[slot.key] = error
            }
        }
        failures.merge(cache.save(writes)) { first, _ in first }
        let isHeard = isHeard
        for (slot, _) in burst {
            if let error = failures[slot.key] {
                events.send(.persistenceFailed(slot.key, error: error))
            } else if isHeard {
                events.send(.saved(slot.key))
            }
        }
    }

    /// Takes the next burst to write (the previous one is written): the next queued save, and the saves queued
    /// after it for the same local cache (an object, so that it is known to be the same). Nil, and the writer
    /// stops, when none is left.
    private func nextBurst() -> [(slot: Slot, save: Save)]? {
        let (next, waiters) = state.withLock {
            state -> ([(slot: Slot, save: Save)]?, [CheckedContinuation<Void, Never>]) in
            var burst: [(slot: Slot, save: Save)] = []
            while let slot = state.order.first, burst.count < Self.burstLimit {
                guard let save = state.queued[slot] else {
                    _ = state.order.popFirst()
                    continue
                }
                if let first = burst.first {
                    guard first.save.persistence.isLocal, let cache = first.slot.cache, slot.cache == cache else {
                        break
                    }
                }
                _ = state.order.popFirst()
                state.queued[slot] = nil
                burst.append((slot, save))
                if !save.persistence.isLocal || slot.cache == nil { break }
            }
            state.writing = burst
            if !burst.isEmpty { return (burst, []) }
            state.isDraining = false
            defer { state.flushWaiters = [] }
            return (nil, state.flushWaiters)
        }
        for waiter in waiters { waiter.resume() }
        return next
    }
}
