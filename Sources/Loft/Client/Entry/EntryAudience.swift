/// The part of an entry's machine that only its observers and waiters use: who observes it and how (with the
/// tally over them), who waits for its fetch, the longest `gcTime` an observer or caller gave, the observers'
/// initial data, and the next moment the data turns stale for them.
///
/// **Behavior**
/// - The machine keeps it out of line (`EntryStateMachine.audience`), made when the first observer, waiter or
///   longer `gcTime` comes, and dropped after the event that leaves it empty: an entry nobody observes or waits
///   for (a service's `fetchQuery` entries, row (i)) pays one pointer for all of it.
/// - Its tally depends on its observers alone, so an audience without observers is an empty one whatever came
///   and went before.
struct EntryAudience: Sendable {
    /// Who waits for the fetch in flight, in the order they came, which is the order they are answered in.
    /// Beside the fetch, not in its box, so that a join is one append: no hashing, and no sort when the fetch
    /// ends (row (e): 10,000 callers joining one fetch).
    var fetchWaiters: [EntryWaiter] = []
    var observers: [UInt64: EntryObserver] = [:]
    /// Counts over `observers`, kept in step by `addObserver`, `changeObserver` and `removeObserver`.
    var tally = ObserverTally()
    /// The longest `gcTime` an observer or caller gave (TanStack keeps the longest it was told).
    var observerGCTime: GCTime?
    var initialData: Boxed<EntryObserver.InitialData>?
    /// `EntryStateMachine.stalenessDeadline`, in nanoseconds since the epoch, `Int64.max` for none.
    var stalenessNanoseconds = Int64.max

    /// Whether it holds nothing: the machine may drop it.
    var isEmpty: Bool {
        fetchWaiters.isEmpty && observers.isEmpty && observerGCTime == nil && initialData == nil
            && stalenessNanoseconds == .max
    }
}
