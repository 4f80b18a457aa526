/// The fetch tasks of one focus or reconnect pass, made once the pass has sent its events to every entry it
/// refetches (`QueryClient.setFocused`, `setOnline`).
///
/// Each fetch is started as any other is, on the caller's thread and before the pass returns: the machine
/// moves the entry to `fetching` and its observers hear of it during the pass. Only the making of the tasks
/// waits for the pass's end, a few microseconds later. Made one by one during the pass, each task woke a
/// thread of the concurrency pool that then finished its fetch while the pass went on, and the two threads
/// contended for the client's locks and the allocator: a pass starting 100 fetches took 2 to 6 times as long
/// from one run to the next (see `docs/Performance.md`, row (k)).
///
/// **Behavior**
/// - Bound to the pass's thread (or task) as a task-local value: fetches started elsewhere meanwhile make
///   their tasks at once. A task made during the pass inherits the binding; once the pass has made its tasks
///   the batch is closed, and a fetch such a task starts later makes its task at once.
/// - The tasks are made in the order the fetches started, each as `QueryCacheEntry.startTask` makes it alone
///   (a fetch cancelled in between gets its task cancelled at once, as when a task comes late).
final class FetchStartBatch: Sendable {
    /// The batch of the pass running on this thread or task, if any.
    @TaskLocal static var current: FetchStartBatch?

    private struct Start: Sendable {
        let entry: QueryCacheEntry
        let id: UInt64
        let request: FetchRequest
    }

    /// The fetches kept; nil once the pass has made their tasks.
    private let starts = Locked<[Start]?>([])

    private init() {}

    /// Runs `pass` with a batch bound to it, then makes the tasks of the fetches it started.
    static func run(_ pass: () -> Void) {
        let batch = FetchStartBatch()
        $current.withValue(batch, operation: pass)
        let starts = batch.starts.withLock { starts in
            defer { starts = nil }
            return starts ?? []
        }
        for start in starts { start.entry.startTask(start.id, start.request) }
    }

    /// Keeps the fetch `id` of `entry` for the end of the pass; false when the pass has ended (the caller
    /// makes the task itself).
    func keep(_ entry: QueryCacheEntry, fetch id: UInt64, _ request: FetchRequest) -> Bool {
        starts.withLock { starts in
            starts?.append(Start(entry: entry, id: id, request: request))
            return starts != nil
        }
    }
}
