import Testing

@testable import Loft

private let key = MachineScript.key
private let cancelled = MachineScript.cancelled

private func at(_ seconds: Int64) -> SchedulerInstant {
    MachineScript.instant(seconds)
}

private func waiter(_ id: UInt64) -> EntryWaiter {
    EntryWaiter(id: id)
}

/// The entry's state machine as a value: one table per rule group, each row the events in (with their
/// instants) and the actions the last one gives out, as postgres-nio tests its connection state machine. A
/// rule changed by accident fails its row.
@Suite struct EntryStateMachineTableTests {
    static let freshness: [MachineScript] = [
        MachineScript(
            "ifStale: data fresh for the staleTime answers the caller from the cache",
            [.write(0, 1), .fetch(10, .ifStale(.seconds(30)), waiter: 1)],
            [.emit(.served(key, fromCache: true)), .resume([waiter(1)], .success(1))]),
        MachineScript(
            "ifStale: data as old as the staleTime is stale and fetches",
            [.write(0, 1), .fetch(30, .ifStale(.seconds(30)), waiter: 1)],
            [.emit(.served(key, fromCache: false))] + MachineScript.started(1, .manual)),
        MachineScript(
            "ifMissing: any data answers, whatever its age",
            [.write(0, 1), .fetch(1_000, .ifMissing, waiter: 1)],
            [.emit(.served(key, fromCache: true)), .resume([waiter(1)], .success(1))]),
        MachineScript(
            "no data is stale whatever the staleTime; the fetch records first use",
            [.fetch(0, .ifStale(.infinity), waiter: 1)],
            [.emit(.served(key, fromCache: false))] + MachineScript.started(1, .firstUse)),
        MachineScript(
            "invalidated data is stale even for an infinite staleTime",
            [.write(0, 1), .at(1, .invalidated(.none)), .fetch(2, .ifStale(.infinity), waiter: 1)],
            [.emit(.served(key, fromCache: false))] + MachineScript.started(1, .manual)),
        MachineScript(
            "static data stays fresh even invalidated",
            [.write(0, 1), .at(1, .invalidated(.none)), .fetch(2, .ifStale(.static), waiter: 1)],
            [.emit(.served(key, fromCache: true)), .resume([waiter(1)], .success(1))]),
        MachineScript(
            "appear: fresh data and refetchOnAppear ifStale answer; nothing starts",
            [.write(0, 1), .fetch(5, .appear(.seconds(10), .ifStale), waiter: 1)],
            [.resume([waiter(1)], .success(1))]),
        MachineScript(
            "appear: always refetches fresh data",
            [.write(0, 1), .fetch(5, .appear(.seconds(10), .always))],
            MachineScript.started(1, .appear)),
        MachineScript(
            "appear: always does not refetch static data",
            [.write(0, 1), .fetch(5, .appear(.static, .always), waiter: 1)],
            [.resume([waiter(1)], .success(1))]),
    ]

    /// A read that fetches only when it must says whether the cache answered it (a hit) or a fetch will (a miss);
    /// other intents say nothing.
    static let served: [MachineScript] = [
        MachineScript(
            "a hit: fresh data answers a read, served from the cache",
            [.write(0, 1), .fetch(1, .ifStale(.seconds(30)), waiter: 1)],
            [.emit(.served(key, fromCache: true)), .resume([waiter(1)], .success(1))]),
        MachineScript(
            "a miss: a read that starts a fetch is served by it",
            [.fetch(0, .ifMissing, waiter: 1)],
            [.emit(.served(key, fromCache: false))] + MachineScript.started(1, .firstUse)),
        MachineScript(
            "a miss: a read that joins a fetch in flight is served by it",
            [.fetch(0, .explicit), .fetch(1, .ifMissing, waiter: 1)],
            [.emit(.served(key, fromCache: false))]),
        MachineScript(
            "an explicit refetch is no read: nothing is served",
            [.write(0, 1), .fetch(1, .explicit)],
            MachineScript.started(1, .manual)),
        MachineScript(
            "an appearing query is no read: nothing is served",
            [.write(0, 1), .fetch(1, .appear(.seconds(30), .ifStale), waiter: 1)],
            [.resume([waiter(1)], .success(1))]),
    ]

    @Test("served: hits and misses of reads", arguments: served)
    func servedTable(_ row: MachineScript) { row.check() }

    @Test("freshness", arguments: freshness)
    func freshnessTable(_ row: MachineScript) { row.check() }

    static let fetching: [MachineScript] = [
        MachineScript(
            "a second request joins the fetch in flight",
            [.fetch(0, .ifStale(.zero), waiter: 1), .fetch(0, .ifStale(.zero), waiter: 2)],
            [.emit(.served(key, fromCache: false))]),
        MachineScript(
            "a trigger joins the fetch in flight",
            [.fetch(0, .ifStale(.zero)), .fetch(1, .trigger, reason: .focus)],
            []),
        MachineScript(
            "an explicit refetch of an entry with data replaces the fetch in flight",
            [.write(0, 1), .fetch(1, .explicit, waiter: 1), .fetch(2, .explicit, waiter: 2)],
            MachineScript.started(2, .manual)),
        MachineScript(
            "the replacing fetch answers the waiters of the one it replaced, in the order they came",
            [
                .write(0, 1), .fetch(1, .explicit, waiter: 1), .fetch(2, .explicit, waiter: 2),
                .succeed(3, fetch: 2, 5),
            ],
            [
                .resume([waiter(1), waiter(2)], .success(5)), .emit(.updated(key)),
                .emit(.fetchFinished(key, error: nil)),
            ]),
        MachineScript(
            "an explicit refetch of an entry with no data joins: a first fetch is never replaced",
            [.fetch(0, .explicit, waiter: 1), .fetch(1, .explicit, waiter: 2)],
            []),
        MachineScript(
            "the result of a replaced fetch changes nothing",
            [.write(0, 1), .fetch(1, .explicit), .fetch(2, .explicit), .succeed(3, fetch: 1, 9)],
            [],
            holds: { $0.data as? Int == 1 && $0.fetchStatus == .fetching }),
        MachineScript(
            "a failed refetch keeps the data, records the error and marks the entry invalidated",
            [
                .write(0, 1), .fetch(1, .explicit, waiter: 1),
                .at(2, .fetchFailed(fetch: 1, APIError.offline, failureCount: 1)),
            ],
            [
                .resume([waiter(1)], .failure(APIError.offline)), .emit(.updated(key)),
                .emit(.fetchFinished(key, error: APIError.offline)),
            ],
            holds: { $0.data as? Int == 1 && $0.status == .error && $0.isInvalidated && $0.failureCount == 1 }),
        MachineScript(
            "a refetch of an entry that failed with no data is pending again, with no error",
            [.fetch(0), .at(1, .fetchFailed(fetch: 1, APIError.offline, failureCount: 1)), .fetch(2)],
            MachineScript.started(2, .firstUse),
            holds: { $0.status == .pending && $0.error == nil }),
        MachineScript(
            "an equal value keeps the old one and notifies nobody of a change",
            [
                .write(0, 1), .fetch(1, .explicit),
                .at(2, .fetchSucceeded(fetch: 1, 1, EntryEvent.Comparison(dataVersion: 1, isSame: true))),
            ],
            [.emit(.fetchFinished(key, error: nil))]),
    ]

    @Test("fetch start, join and replace", arguments: fetching)
    func fetchingTable(_ row: MachineScript) { row.check() }

    static let cancelling: [MachineScript] = [
        MachineScript(
            "cancel with revert restores the state from before the fetch; its waiters get a typed cancellation",
            [.write(0, 1), .fetch(1, .explicit, waiter: 1), .at(2, .cancelRequested(revert: true))],
            [.resume([waiter(1)], .failure(cancelled)), .emit(.fetchFinished(key, error: cancelled))],
            holds: { $0.data as? Int == 1 && $0.status == .success && $0.fetchStatus == .idle }),
        MachineScript(
            "a cancelled first fetch ends pending and idle, and sets the collection alarm",
            [.fetch(0, .ifStale(.zero), waiter: 1), .at(1, .cancelRequested(revert: true))],
            [
                .resume([waiter(1)], .failure(cancelled)), .emit(.fetchFinished(key, error: cancelled)),
                .setAlarm(at(301)),
            ],
            holds: { $0.status == .pending && $0.fetchStatus == .idle }),
        MachineScript(
            "data written during the fetch survives the cancel",
            [.fetch(0), .write(1, 7), .at(2, .cancelRequested(revert: true))],
            [.emit(.fetchFinished(key, error: cancelled)), .setAlarm(at(302))],
            holds: { $0.data as? Int == 7 && $0.status == .success }),
        MachineScript(
            "cancel with no fetch in flight does nothing",
            [.write(0, 1), .at(1, .cancelRequested(revert: true))],
            []),
        MachineScript(
            "cancel without revert keeps the error of an entry that failed with no data",
            [
                .fetch(0), .at(1, .fetchFailed(fetch: 1, APIError.offline, failureCount: 1)), .fetch(2, .explicit),
                .at(3, .cancelRequested(revert: false)),
            ],
            [.emit(.fetchFinished(key, error: cancelled))],
            holds: { $0.status == .error && $0.error as? APIError == .offline && $0.fetchStatus == .idle }),
        MachineScript(
            "a caller that leaves gets a CancellationError; the fetch goes on for the others",
            [.fetch(0, waiter: 1), .fetch(0, waiter: 2), .at(1, .waiterLeft(waiter(1)))],
            [.resume([waiter(1)], .failure(CancellationError()))],
            holds: { $0.fetchStatus == .fetching }),
        MachineScript(
            "the callers of a fetch are answered in one action, in the order they came, whatever their ids",
            [.fetch(0, waiter: 3), .fetch(0, waiter: 1), .fetch(0, waiter: 2), .succeed(1, fetch: 1, 7)],
            [
                .resume([waiter(3), waiter(1), waiter(2)], .success(7)), .emit(.updated(key)),
                .emit(.fetchFinished(key, error: nil)), .setAlarm(at(301)),
            ]),
        MachineScript(
            "a caller that left is not answered again when the fetch ends; the others keep their order",
            [
                .fetch(0, waiter: 1), .fetch(0, waiter: 2), .fetch(0, waiter: 3), .at(1, .waiterLeft(waiter(2))),
                .succeed(2, fetch: 1, 7),
            ],
            [
                .resume([waiter(1), waiter(3)], .success(7)), .emit(.updated(key)),
                .emit(.fetchFinished(key, error: nil)), .setAlarm(at(302)),
            ]),
        MachineScript(
            "a caller that leaves twice is answered once",
            [
                .fetch(0, waiter: 1), .fetch(0, waiter: 2), .at(1, .waiterLeft(waiter(1))),
                .at(2, .waiterLeft(waiter(1))),
            ],
            [],
            holds: { $0.fetchStatus == .fetching }),
        MachineScript(
            "reset cancels the fetch and goes back to no data",
            [.write(0, 1), .fetch(1, .explicit, waiter: 1), .at(2, .reset)],
            [
                .resume([waiter(1)], .failure(cancelled)), .emit(.fetchFinished(key, error: cancelled)),
                .emit(.updated(key)),
            ],
            holds: { $0.data == nil && $0.status == .pending }),
    ]

    @Test("cancel and restore", arguments: cancelling)
    func cancellingTable(_ row: MachineScript) { row.check() }

    static let collection: [MachineScript] = [
        MachineScript(
            "an entry nobody observes sets its alarm the defaults' gcTime after it was written",
            [.write(5, 1)],
            [.emit(.updated(key)), .setAlarm(at(305))]),
        MachineScript(
            "the alarm at the deadline collects an unobserved, idle entry",
            [.write(0, 1), .at(300, .alarmRang(at(300)))],
            [.collect]),
        MachineScript(
            "a collected entry is removed at once: a caller reaching it before the client took it out is sent to the "
                + "key's next entry (no fetch here for the removal to cancel)",
            [.write(0, 1), .at(300, .alarmRang(at(300))), .fetch(301, .ifMissing, waiter: 1)],
            [.resume([waiter(1)], .failure(EntryRemovedError()))]),
        MachineScript(
            "an observer added to a removed entry is told at once, so it follows its key",
            [.write(0, 1), .at(300, .alarmRang(at(300))), .at(301, .observerAdded(2, removalHeard))],
            [.notifyRemoved([ObserverCall(observer: 2) { _ in }])]),
        MachineScript(
            "no deadline while observed: the last observer leaving sets it",
            [.observe(0, 1), .write(1, 1), .at(10, .observerRemoved(1))],
            [.setAlarm(at(310))]),
        MachineScript(
            "the observers' gcTime collects, even one shorter than the defaults'",
            [.observe(0, 1, MachineScript.observer(gcTime: .seconds(5))), .at(10, .observerRemoved(1))],
            [.setAlarm(at(15))]),
        MachineScript(
            "the longest gcTime of the observers wins",
            [
                .observe(0, 1, MachineScript.observer(gcTime: .seconds(5))),
                .observe(0, 2, MachineScript.observer(gcTime: .seconds(20))), .at(1, .observerRemoved(1)),
                .at(2, .observerRemoved(2)),
            ],
            [.setAlarm(at(22))]),
        MachineScript(
            "a fetch in flight holds off collection",
            [.write(0, 1), .fetch(1, .explicit), .at(300, .alarmRang(at(300)))],
            []),
        MachineScript(
            "a gcTime of infinity sets no deadline",
            [.observe(0, 1, MachineScript.observer(gcTime: .infinity)), .at(1, .observerRemoved(1))],
            []),
        MachineScript(
            "data turning stale for an observer sets an alarm then (to notify it)",
            [.observe(0, 1, MachineScript.observer(staleTime: .seconds(30))), .write(1, 1)],
            [.emit(.updated(key)), .setAlarm(at(31))]),
    ]

    /// An observer that hears of its entry's removal.
    static let removalHeard: EntryObserver = {
        var observer = MachineScript.observer()
        observer.entryRemoved = {}
        return observer
    }()

    @Test("garbage collection and staleness deadlines", arguments: collection)
    func collectionTable(_ row: MachineScript) { row.check() }

    /// Eviction (the client's memory budget, a trim) takes only an idle entry, at once; a caller's `gcTime` counts
    /// as an observer's.
    static let eviction: [MachineScript] = [
        MachineScript(
            "an idle entry is evicted at once: the storage removes it from its client",
            [.write(0, 1), .at(1, .evictionRequested(.budget))],
            [.evict(.budget)]),
        MachineScript(
            "an observed entry refuses eviction",
            [.observe(0, 1), .write(1, 1), .at(2, .evictionRequested(.budget))],
            []),
        MachineScript(
            "a fetching entry refuses eviction",
            [.fetch(0, .explicit), .at(1, .evictionRequested(.trim))],
            []),
        MachineScript(
            "an evicted entry takes no more events: a caller is told to use the key's next entry",
            [.write(0, 1), .at(1, .evictionRequested(.trim)), .fetch(2, .ifStale(.seconds(30)), waiter: 1)],
            [.resume([waiter(1)], .failure(EntryRemovedError()))]),
        MachineScript(
            "a caller's gcTime replaces the defaults' when the fetch ends",
            [.at(0, .fetchRequested(gcTime: .seconds(10), .ifMissing)), .succeed(1, fetch: 1, 7)],
            [.emit(.updated(key)), .emit(.fetchFinished(key, error: nil)), .setAlarm(at(11))]),
        MachineScript(
            "a caller's gcTime shorter than one an observer gave leaves the longer",
            [
                .observe(0, 1, MachineScript.observer(gcTime: .seconds(60))), .at(1, .observerRemoved(1)),
                .at(2, .fetchRequested(gcTime: .seconds(5), .explicit)),
                .succeed(3, fetch: 1, 7), .at(61, .alarmRang(at(61))),
            ],
            [.setAlarm(at(63))]),
    ]

    @Test("eviction, and a caller's gcTime", arguments: eviction)
    func evictionTable(_ row: MachineScript) { row.check() }

    static let triggers: [MachineScript] = [
        MachineScript(
            "focus refetches stale data through the first enabled observer",
            [.observe(0, 1), .observe(0, 2), .write(0, 1), .at(1, .focusRegained)],
            [MachineScript.refetch(1, .focus)]),
        MachineScript(
            "focus leaves fresh data alone",
            [.observe(0, 1, MachineScript.observer(staleTime: .seconds(60))), .write(0, 1), .at(1, .focusRegained)],
            []),
        MachineScript(
            "focus set to always refetches fresh data",
            [
                .observe(0, 1, MachineScript.observer(staleTime: .seconds(60), onFocus: .always)), .write(0, 1),
                .at(1, .focusRegained),
            ],
            [MachineScript.refetch(1, .focus)]),
        MachineScript(
            "static data: not even a trigger set to always refetches it",
            [
                .observe(0, 1, MachineScript.observer(staleTime: .static, onFocus: .always, onReconnect: .always)),
                .write(0, 1), .at(1, .reconnected),
            ],
            []),
        MachineScript(
            "a disabled observer is never refetched",
            [.observe(0, 1, MachineScript.observer(isEnabled: false)), .write(0, 1), .at(1, .focusRegained)],
            []),
        MachineScript(
            "reconnect refetches stale data",
            [.observe(0, 1), .write(0, 1), .at(1, .reconnected)],
            [MachineScript.refetch(1, .reconnect)]),
        MachineScript(
            "invalidation refetches an entry with an enabled observer",
            [.observe(0, 1), .write(0, 1), .at(1, .invalidated(.active))],
            [MachineScript.refetch(1, .invalidation)]),
        MachineScript(
            "invalidation of an entry nobody observes only marks it (refetchType active)",
            [.write(0, 1), .at(1, .invalidated(.active))],
            [],
            holds: { $0.isInvalidated }),
        MachineScript(
            "static data ignores invalidation",
            [.observe(0, 1, MachineScript.observer(staleTime: .static)), .write(0, 1), .at(1, .invalidated(.all))],
            [],
            holds: { !$0.isInvalidated }),
        MachineScript(
            "a bulk refetch leaves static data alone",
            [
                .observe(0, 1, MachineScript.observer(staleTime: .static)), .write(0, 1),
                .at(1, .refetchRequested(.manual)),
            ],
            []),
        MachineScript(
            "a bulk refetch of an inactive entry fetches with its last request",
            [.fetch(0), .succeed(1, fetch: 1, 5), .at(2, .refetchRequested(.manual))],
            MachineScript.started(2, .manual)),
        MachineScript(
            "a bulk refetch leaves an entry that was never fetched alone (nothing knows how)",
            [.write(0, 1), .at(1, .refetchRequested(.manual))],
            []),
        MachineScript(
            "a mutation's new data refetches the enabled observers that take requests, in the order they came",
            [
                .observe(0, 2, MachineScript.requestTaker()), .observe(0, 1, MachineScript.requestTaker()),
                .observe(0, 3, MachineScript.consumer()), .write(0, 1), .at(1, .refetchWithRequestRequested(7)),
            ],
            [MachineScript.refetchWithRequest(1, 2)]),
        MachineScript(
            "a mutation's new data leaves a disabled observer alone, as every bulk refetch does",
            [
                .observe(0, 1, MachineScript.requestTaker(isEnabled: false)), .write(0, 1),
                .at(1, .refetchWithRequestRequested(7)),
            ],
            []),
    ]

    @Test("triggers and observers", arguments: triggers)
    func triggersTable(_ row: MachineScript) { row.check() }

    static let keyFreshness: [MachineScript] = [
        MachineScript(
            "a consumer without a staleTime of its own judges by the query's: the key's is the query's",
            [
                .observe(0, 1, MachineScript.observer(staleTime: .seconds(30))), .write(0, 1),
                .observe(1, 2, MachineScript.consumer()),
            ],
            [],
            holds: { $0.staleTime == .seconds(30) }),
        MachineScript(
            "the key's staleTime is the shortest of the observers that judge (a consumer given one judges)",
            [
                .observe(0, 1, MachineScript.observer(staleTime: .infinity)),
                .observe(0, 2, MachineScript.consumer(fallback: .seconds(5), judges: true)),
                .observe(0, 3, MachineScript.consumer(fallback: .zero)),
            ],
            [],
            holds: { $0.staleTime == .seconds(5) }),
        MachineScript(
            "with only consumers that inherit, the key's staleTime is their fallback (the key's defaults)",
            [.observe(0, 1, MachineScript.consumer(fallback: .seconds(60)))],
            [],
            holds: { $0.staleTime == .seconds(60) }),
        MachineScript(
            "the last observer leaving takes the key's staleTime away",
            [
                .observe(0, 1, MachineScript.observer(staleTime: .seconds(30))),
                .at(1, .observerRemoved(1)),
            ],
            [.setAlarm(MachineScript.instant(301))],  // the collection deadline
            holds: { $0.staleTime == nil }),
        MachineScript(
            "a disabled query does not judge",
            [
                .observe(0, 1, MachineScript.observer(staleTime: .zero, isEnabled: false)),
                .observe(0, 2, MachineScript.consumer(fallback: .seconds(60))),
            ],
            [],
            holds: { $0.staleTime == .seconds(60) }),
        MachineScript(
            "an invalidation of an entry with data replaces the fetch in flight (it may predate the change)",
            [.fetch(0), .succeed(1, fetch: 1, 5), .fetch(2), .at(3, .invalidated(.all))],
            MachineScript.started(3, .invalidation)),
        MachineScript(
            "a bulk refetch of an entry with data replaces the fetch in flight",
            [.fetch(0), .succeed(1, fetch: 1, 5), .fetch(2), .at(3, .refetchRequested(.manual))],
            MachineScript.started(3, .manual)),
        MachineScript(
            "an invalidation of an entry without data joins the fetch in flight",
            [.fetch(0), .at(1, .invalidated(.all))],
            []),
    ]

    @Test("the key's freshness, and what replaces a fetch in flight", arguments: keyFreshness)
    func keyFreshnessTable(_ row: MachineScript) { row.check() }

    static let pausing: [MachineScript] = [
        MachineScript(
            "offline, a fetch in online mode starts paused",
            [.fetch(0, online: false)],
            MachineScript.started(1, .firstUse),
            holds: { $0.fetchStatus == .paused }),
        MachineScript(
            "offline, a fetch in always mode starts fetching",
            [.fetch(0, online: false, networkMode: .always)],
            MachineScript.started(1, .firstUse, networkMode: .always),
            holds: { $0.fetchStatus == .fetching }),
        MachineScript(
            "a paused fetch that goes on is fetching again, and the client hears it",
            [.fetch(0, online: false), .at(1, .fetchContinued(fetch: 1))],
            [.emit(.fetchContinued(key))],
            holds: { $0.fetchStatus == .fetching }),
        MachineScript(
            "a failed attempt of the fetch in flight counts, and the client hears it; one of an older fetch does not",
            [.fetch(0), .at(1, .attemptFailed(fetch: 1, failureCount: 1, error: QueryError.disabled(key: key)))],
            [.emit(.fetchRetrying(key, failureCount: 1, error: QueryError.disabled(key: key)))],
            holds: { $0.failureCount == 1 }),
        MachineScript(
            "a retry report of a fetch that is no longer in flight changes nothing",
            [.fetch(0), .at(1, .attemptFailed(fetch: 9, failureCount: 1, error: QueryError.disabled(key: key)))],
            [],
            holds: { $0.failureCount == 0 }),
        MachineScript(
            "a waiter that skips paused fetches is answered at once",
            [.fetch(0, online: false), .at(1, .waiterJoined(waiter(1), skipsPaused: true))],
            [.resume([waiter(1)], .failure(QueryError.disabled(key: key)))]),
        MachineScript(
            "a waiter that does not skip them waits",
            [.fetch(0, online: false), .at(1, .waiterJoined(waiter(1), skipsPaused: false))],
            []),
        MachineScript(
            "the last observer leaving cancels a paused first fetch",
            [.observe(0, 1), .fetch(0, observer: 1, online: false), .at(1, .observerRemoved(1))],
            [.emit(.fetchFinished(key, error: cancelled)), .setAlarm(at(301))],
            holds: { $0.fetchStatus == .idle }),
        MachineScript(
            "a removed entry takes no event; a fetch request that reaches it is sent to the key's next entry",
            [.write(0, 1), .at(1, .removed), .fetch(2, waiter: 1)],
            [.resume([waiter(1)], .failure(EntryRemovedError()))]),
    ]

    @Test("paused and resumed fetches, and removal", arguments: pausing)
    func pausingTable(_ row: MachineScript) { row.check() }

    static let versions: [MachineScript] = [
        MachineScript(
            "a shared value with a newer version than the entry's is written",
            [.write(0, 1, origin: .shared(version: 3)), .write(0, 2, origin: .shared(version: 4))],
            [.emit(.updated(key))]),
        MachineScript(
            "a shared value with an older or equal version than the entry's is ignored",
            [.write(0, 1, origin: .shared(version: 4)), .write(0, 2, origin: .shared(version: 4))],
            [], holds: { $0.data as? Int == 1 }),
        MachineScript(
            "a value restored with a version gives the entry that version: an older shared one is ignored",
            [.write(0, 1, origin: .restored(version: 7)), .write(0, 2, origin: .shared(version: 6))],
            [], holds: { $0.data as? Int == 1 }),
        MachineScript(
            "a local write keeps the entry's version: the next shared value newer than it is written",
            [
                .write(0, 1, origin: .shared(version: 3)), .write(0, 2),
                .write(0, 3, origin: .shared(version: 4)),
            ],
            [.emit(.updated(key))], holds: { $0.data as? Int == 3 }),
        MachineScript(
            "an invalidation older than the entry's version is ignored",
            [.write(0, 1, origin: .shared(version: 5)), .at(0, .invalidated(.active, version: 4))],
            [], holds: { !$0.isInvalidated }),
        MachineScript(
            "an invalidation newer than the data marks it; a value between the two is still newer data",
            [
                .write(0, 1, origin: .shared(version: 5)), .at(0, .invalidated(.none, version: 7)),
                .write(0, 2, origin: .shared(version: 6)),
            ],
            [.emit(.updated(key))], holds: { $0.data as? Int == 2 }),
    ]

    @Test("versions from a store that orders a key's changes", arguments: versions)
    func versionsTable(_ row: MachineScript) { row.check() }

    static let persistence: [MachineScript] = [
        MachineScript(
            "a write adopts the persistence without reading the store, and its value is saved",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useAndThenFetch), restores: false)),
                .write(0, 5),
            ],
            [
                .emit(.updated(key)), .save(5, at: at(0), MachineScript.persistence(.useAndThenFetch)),
            ]),
        MachineScript(
            "a value restored from the store is not saved back",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useAndThenFetch), restores: false)),
                .write(0, 5, origin: .restored(version: nil)),
            ],
            [.emit(.updated(key)), .emit(.restored(key))]),
        MachineScript(
            "a value another client shared is saved to a local store",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useAndThenFetch), restores: false)),
                .write(0, 5, origin: .shared(version: nil)),
            ],
            [
                .emit(.updated(key)), .save(5, at: at(0), MachineScript.persistence(.useAndThenFetch)),
            ]),
        MachineScript(
            "a value another client shared is not saved to a network store, which that client wrote",
            [
                .at(0, .persistenceAdopted(MachineScript.networkPersistence(.useAndThenFetch), restores: false)),
                .write(0, 5, origin: .shared(version: nil)),
            ],
            [.emit(.updated(key))]),
        MachineScript(
            "a value this client wrote is saved to a network store",
            [
                .at(0, .persistenceAdopted(MachineScript.networkPersistence(.useAndThenFetch), restores: false)),
                .write(0, 5),
            ],
            [
                .emit(.updated(key)), .save(5, at: at(0), MachineScript.networkPersistence(.useAndThenFetch)),
            ]),
        MachineScript(
            "a persistence that shows stored values up front restores into an empty entry",
            [.at(0, .persistenceAdopted(MachineScript.persistence(.useAndThenFetch)))],
            [.restore(MachineScript.persistence(.useAndThenFetch)), .setAlarm(at(300))]),
        MachineScript(
            "useIfFetchFails restores nothing up front",
            [.at(0, .persistenceAdopted(MachineScript.persistence(.useIfFetchFails)))],
            [.setAlarm(at(300))]),
        MachineScript(
            "useInsteadOfFetching: a request asks the store first",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useInsteadOfFetching))),
                .fetch(1, .ifStale(.zero), waiter: 1),
            ],
            [
                .checkStore(
                    MachineScript.request(.firstUse), .ifStale(.zero), observer: nil, waiter: waiter(1),
                    MachineScript.persistence(.useInsteadOfFetching))
            ]),
        MachineScript(
            "useInsteadOfFetching: a valid stored value answers without fetching",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useInsteadOfFetching))),
                .at(
                    1,
                    .storeChecked(
                        MachineScript.request(.firstUse), .ifStale(.zero), observer: nil, waiter: waiter(1),
                        isValid: true, stored: CachedValue(value: 4, savedAt: at(0)))),
            ],
            [
                .emit(.updated(key)), .emit(.restored(key)), .emit(.served(key, fromCache: true)),
                .resume([waiter(1)], .success(4)),
            ],
            holds: { $0.isRestored }),
        MachineScript(
            "useInsteadOfFetching: with no valid value the fetcher is called",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useInsteadOfFetching))),
                .at(
                    1,
                    .storeChecked(
                        MachineScript.request(.firstUse), .ifStale(.zero), observer: nil, waiter: waiter(1),
                        isValid: false, stored: nil)),
            ],
            [
                .emit(.served(key, fromCache: false)), .emit(.fetchStarted(key, reason: .firstUse)),
                .startFetch(id: 1, MachineScript.request(.firstUse, hasCheckedStore: true)),
            ]),
        MachineScript(
            "useInsteadOfFetching: a bulk refetch with the last fetcher asks the store first, as an observer's does",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useInsteadOfFetching))),
                .at(
                    1,
                    .storeChecked(
                        MachineScript.request(.firstUse), .ifStale(.zero), observer: nil, waiter: nil,
                        isValid: false, stored: nil)),
                .succeed(2, fetch: 1, 5), .at(3, .refetchRequested(.manual)),
            ],
            [
                .checkStore(
                    MachineScript.request(.manual), .explicit, observer: nil, waiter: nil,
                    MachineScript.persistence(.useInsteadOfFetching))
            ]),
        MachineScript(
            "useInsteadOfFetching: an invalidation refetches with the last fetcher without asking the store",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useInsteadOfFetching))),
                .at(
                    1,
                    .storeChecked(
                        MachineScript.request(.firstUse), .ifStale(.zero), observer: nil, waiter: nil,
                        isValid: false, stored: nil)),
                .succeed(2, fetch: 1, 5), .at(3, .invalidated(.all)),
            ],
            MachineScript.started(2, .invalidation)),
        MachineScript(
            "a success is saved",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useIfFetchFails))), .fetch(1),
                .succeed(2, fetch: 1, 5),
            ],
            [
                .emit(.updated(key)), .save(5, at: at(2), MachineScript.persistence(.useIfFetchFails)),
                .emit(.fetchFinished(key, error: nil)),
            ]),
        MachineScript(
            "useIfFetchFails: a failed fetch with no data loads the stored value instead of the error",
            [
                .at(0, .persistenceAdopted(MachineScript.persistence(.useIfFetchFails))), .fetch(1),
                .at(2, .fetchFailed(fetch: 1, APIError.offline, failureCount: 1)),
            ],
            [.loadFallback(fetch: 1, APIError.offline, failureCount: 1, MachineScript.persistence(.useIfFetchFails))]),
    ]

    @Test("persistence", arguments: persistence)
    func persistenceTable(_ row: MachineScript) { row.check() }
}
