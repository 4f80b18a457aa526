/// What the state machine of an entry asks its storage to do once the lock is released: the output of
/// `EntryStateMachine`, performed in order.
///
/// Actions name what they act on (a waiter, an observer, a fetch) rather than carry the effect, so that the
/// machine's tests compare them as values (`EntryAction+Equatable.swift`): the storage holds the waiters'
/// continuations and resolves them when it performs the action.
package enum EntryAction: Sendable {
    /// Resumes callers of `fetchValue` (or `settled`), in the order given, with one value or error: all the
    /// waiters of a fetch in one action, so that answering 10,000 joined callers copies one action (row (e)).
    case resume([EntryWaiter], Result<any Sendable, any Error>)
    /// Starts the fetch `id` in a tracked task, through a retryer.
    case startFetch(id: UInt64, FetchRequest)
    case cancelTask(TrackedTask<Void>)
    case cancelRetry(Retryer)
    case continueRetry(Retryer)
    /// Asks the persistent cache whether it holds a valid value for the request (`.useInsteadOfFetching`).
    case checkStore(FetchRequest, FetchIntent, observer: UInt64?, waiter: EntryWaiter?, EntryPersistence)
    /// Reads the stored value into the empty entry.
    case restore(EntryPersistence)
    /// Reads the stored value to show instead of the error of a failed fetch (`.useIfFetchFails`).
    case loadFallback(fetch: UInt64, any Error, failureCount: Int, EntryPersistence)
    case save(any Sendable, at: SchedulerInstant, EntryPersistence)
    /// Sets an alarm on the client's timer queue, to ring the entry at an instant (it cannot be cancelled).
    case setAlarm(SchedulerInstant)
    /// Asks an observer to refetch with its own fetcher and request.
    case refetch(ObserverCall<FetchReason>, FetchReason)
    case emit(QueryCacheEvent)
    /// Tells the observers that the entry was removed.
    case notifyRemoved([ObserverCall<Void>])
    /// Refetches each of these observers with the request the event named (a mutation's `.newData`).
    case refetchWithRequest([ObserverCall<Void>])
    /// Removes the entry from its client (garbage collection).
    case collect
    /// Removes the entry, which the machine marked removed already, from its client (an eviction).
    case evict(EvictionReason)
}

/// A callback of one observer, named by the observer's id: two are equal when they belong to the same
/// observer (the machine's tests compare actions without comparing closures).
package struct ObserverCall<Argument: Sendable>: Sendable, Equatable {
    package let observer: UInt64
    package let call: @Sendable (Argument) -> Void

    package init(observer: UInt64, _ call: @escaping @Sendable (Argument) -> Void) {
        self.observer = observer
        self.call = call
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.observer == rhs.observer
    }
}
