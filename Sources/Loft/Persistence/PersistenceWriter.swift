import Dispatch

/// Writes the values of a client's entries to their persistent caches behind the caller: one writer per
/// client, on a serial queue of its own, counted by the client's work tracker.
///
/// A save is queued under its key (and the cache it goes to) and the caller returns at once; the writer
/// encodes and writes the queued values one at a time (a network provider's awaited in a task, so that no
/// thread waits for it), keys in the order their first queued save came. A
/// newer save of a key replaces the one still queued, so only the latest value of a key is written; an entry
/// queues its saves while it holds its lock, so they reach the writer in the order of its changes. Until a
/// value is written, a read of its key through the writer (`pending`) gets it, so an entry made again for the
/// key restores the latest value, not the one on disk.
///
/// **Behavior**
/// - A failure to save is sent on the client's events as `persistenceFailed`; the other saves go on.
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
        /// The save being written, readable until it is on disk.
        var writing: (slot: Slot, save: Save)?
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
            if let writing = state.writing, writing.slot == slot { return writing.save }
            return nil
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

    /// Writes queued saves until none is left. A save to a network provider is awaited in a tracked task,
    /// which drains the rest on the queue once it is written: the queue's thread never waits for a network.
    private func drain() {
        while let (slot, save) = next() {
            do throws(CacheError) {
                guard try save.persistence.saveLocally(save.value, for: slot.key, at: save.savedAt) else {
                    tracker.spawn { [self] in
                        do throws(CacheError) {
                            try await save.persistence.saveAwaiting(save.value, for: slot.key, at: save.savedAt)
                        } catch {
                            events.send(.persistenceFailed(slot.key, error: error))
                        }
                        start()
                    }
                    return
                }
            } catch {
                events.send(.persistenceFailed(slot.key, error: error))
            }
        }
    }

    /// Takes the next save to write (the previous one is written); nil, and the writer stops, when none is left.
    private func next() -> (Slot, Save)? {
        let (next, waiters) = state.withLock { state -> ((Slot, Save)?, [CheckedContinuation<Void, Never>]) in
            state.writing = nil
            while let slot = state.order.popFirst() {
                guard let save = state.queued.removeValue(forKey: slot) else { continue }
                state.writing = (slot, save)
                return ((slot, save), [])
            }
            state.isDraining = false
            defer { state.flushWaiters = [] }
            return (nil, state.flushWaiters)
        }
        for waiter in waiters { waiter.resume() }
        return next
    }
}
