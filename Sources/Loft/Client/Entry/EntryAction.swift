/// What the state machine of an entry asks its storage to do once the lock is released: the output of
/// `EntryStateMachine`, performed in order.
package enum EntryAction: Sendable {
    /// Resumes a caller of `fetchValue`.
    case resume(CheckedContinuation<any Sendable, any Error>, Result<any Sendable, any Error>)
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
    case refetch(@Sendable (FetchReason) -> Void, FetchReason)
    case emit(QueryCacheEvent)
    /// Tells the observers that the entry was removed.
    case notifyRemoved([@Sendable () -> Void])
    /// Removes the entry from its client (garbage collection).
    case collect
}
