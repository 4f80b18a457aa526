/// The machine's audience (`EntryAudience`): read without making it, made on the first write.
extension EntryStateMachine {
    /// The entry's observers and waiters and what they gave, made on first use (see `EntryAudience`; dropped
    /// after the event that empties it, by `scheduleTimers`). Reads go through the properties below, which make
    /// nothing.
    var audience: EntryAudience {
        get { audienceStorage.first ?? EntryAudience() }
        _modify {
            if audienceStorage.isEmpty { audienceStorage.append(EntryAudience()) }
            yield &audienceStorage[0]
        }
    }

    /// Who waits for the fetch in flight, in the order they came (and are answered).
    var fetchWaiters: [EntryWaiter] {
        get { audienceStorage.isEmpty ? [] : audienceStorage[0].fetchWaiters }
        _modify { yield &audience.fetchWaiters }
    }

    var observers: [UInt64: EntryObserver] {
        get { audienceStorage.isEmpty ? [:] : audienceStorage[0].observers }
        _modify { yield &audience.observers }
    }

    /// Whether an observer (enabled or not) follows the entry.
    var isObserved: Bool {
        !audienceStorage.isEmpty && !audienceStorage[0].observers.isEmpty
    }

    /// Counts over `observers`, kept in step by `addObserver`, `changeObserver` and `removeObserver`.
    var tally: ObserverTally {
        get { audienceStorage.isEmpty ? ObserverTally() : audienceStorage[0].tally }
        _modify { yield &audience.tally }
    }

    /// The next instant at which the data turns stale for an enabled observer (they are notified then).
    var stalenessDeadline: SchedulerInstant? {
        get { audienceStorage.isEmpty ? nil : Self.instant(audienceStorage[0].stalenessNanoseconds) }
        set {
            guard let newValue else {
                if !audienceStorage.isEmpty { audienceStorage[0].stalenessNanoseconds = .max }
                return
            }
            audience.stalenessNanoseconds = newValue.nanosecondsSinceEpoch
        }
    }

    /// The longest `gcTime` an observer or caller gave (TanStack keeps the longest it was told).
    var observerGCTime: GCTime? {
        get { audienceStorage.isEmpty ? nil : audienceStorage[0].observerGCTime }
        set { audience.observerGCTime = newValue }
    }

    var initialData: Boxed<EntryObserver.InitialData>? {
        get { audienceStorage.isEmpty ? nil : audienceStorage[0].initialData }
        set { audience.initialData = newValue }
    }

    /// `read` of the tally in place, without copying it out (its counts and summary are asked after every
    /// event); nil without an audience, which has no observers to count.
    func readTally<R>(_ read: (ObserverTally) -> R) -> R? {
        audienceStorage.isEmpty ? nil : read(audienceStorage[0].tally)
    }

    /// Drops the audience once it holds nothing (after each event).
    mutating func dropEmptyAudience() {
        if !audienceStorage.isEmpty, audienceStorage[0].isEmpty { audienceStorage = [] }
    }

    /// Leaves no waiter, without making an audience to hold none.
    mutating func clearFetchWaiters() {
        if !audienceStorage.isEmpty { audienceStorage[0].fetchWaiters = [] }
    }
}
