import LoftTesting
import Testing

@testable import Loft

/// A table row for the entry's state machine: events in, each at an instant (seconds after the epoch) and
/// under the network and focus it names, and the actions the last event must give out.
struct MachineScript: Sendable, CustomTestStringConvertible {
    /// One event of a row.
    struct Step: Sendable {
        let event: EntryEvent
        let at: Int64
        let isOnline: Bool
        let isFocused: Bool
    }

    let rule: String
    let steps: [Step]
    let expected: [EntryAction]
    /// What must hold of the snapshot after the last step, beside the actions.
    let holds: @Sendable (EntrySnapshot) -> Bool
    /// Whether the last step, a read without its fetcher, asks for the fetcher (`Output.needsFetcher`).
    let needsFetcher: Bool

    init(
        _ rule: String, _ steps: [Step], _ expected: [EntryAction], needsFetcher: Bool = false,
        holds: @escaping @Sendable (EntrySnapshot) -> Bool = { _ in true }
    ) {
        self.rule = rule
        self.steps = steps
        self.expected = expected
        self.needsFetcher = needsFetcher
        self.holds = holds
    }

    var testDescription: String { rule }

    /// Runs the row and checks its actions, whether it asked for a fetcher, and its snapshot.
    func check() {
        let (output, snapshot) = run()
        #expect(output.actions == expected, "\(rule)")
        #expect(output.needsFetcher == needsFetcher, "\(rule): asks for the fetcher")
        #expect(holds(snapshot), "\(rule): the snapshot")
    }

    /// Feeds the steps to a new machine (the defaults' `gcTime` 300 s) and returns the last output.
    func run() -> (EntryStateMachine.Output, EntrySnapshot) {
        var machine = EntryStateMachine(gcTime: .seconds(300))
        var output = EntryStateMachine.Output(key: Self.key)
        for step in steps {
            var conditions = ClientEnvironment.Conditions()
            conditions.isOnline = step.isOnline
            conditions.isFocused = step.isFocused
            output = machine.handle(step.event, of: Self.key, at: Self.instant(step.at), conditions: conditions)
        }
        return (output, machine.snapshot)
    }

    // MARK: - Building rows

    static let key: QueryKey = "k"

    static func instant(_ seconds: Int64) -> SchedulerInstant {
        SchedulerInstant(secondsSinceEpoch: seconds)
    }

    /// A fetch request as the machine sees it (its fetcher is never run here).
    static func request(
        _ reason: FetchReason = .manual, networkMode: NetworkMode = .online, hasCheckedStore: Bool = false,
        gcTime: GCTime? = nil
    ) -> FetchRequest {
        var request = FetchRequest(
            fetch: { 0 }, retry: .never, networkMode: networkMode, structuralSharing: true, reason: reason)
        request.hasCheckedStore = hasCheckedStore
        request.gcTime = gcTime
        return request
    }

    /// The persistence of `Int`s in one in-memory cache shared by every row, with `usage`.
    static func persistence(_ usage: QueryCacheConfig.UsagePolicy) -> EntryPersistence {
        guard let made = EntryPersistence.make(Int.self, cache: cache, config: QueryCacheConfig(usagePolicy: usage))
        else { preconditionFailure("Int is Codable, so it has a persistence") }
        return made
    }

    private static let cache = InMemoryQueryCache()

    /// The persistence of `Int`s in one network cache shared by every row, with `usage`.
    static func networkPersistence(_ usage: QueryCacheConfig.UsagePolicy) -> EntryPersistence {
        guard
            let made = EntryPersistence.make(
                Int.self, provider: .network(networkCache), config: QueryCacheConfig(usagePolicy: usage))
        else { preconditionFailure("Int is Codable, so it has a persistence") }
        return made
    }

    private static let networkCache = TestNetworkCache()

    static let cancelled = QueryError.cancelled(key: key)

    static func observer(
        staleTime: StaleTime = .zero, gcTime: GCTime = .seconds(300), isEnabled: Bool = true,
        onFocus: RefetchTrigger = .ifStale, onReconnect: RefetchTrigger = .ifStale
    ) -> EntryObserver {
        EntryObserver(
            isEnabled: isEnabled, staleTime: staleTime, gcTime: gcTime, refetchOnFocus: onFocus,
            refetchOnReconnect: onReconnect, refetch: { _ in })
    }

    /// A consumer: it cannot fetch; without a `staleTime` of its own (`judges` false) it judges freshness as
    /// the key does, `fallback` only while no observer judges.
    static func consumer(fallback: StaleTime = .zero, judges: Bool = false) -> EntryObserver {
        EntryObserver(staleTime: fallback, judgesFreshness: judges)
    }

    /// A query's observer that also refetches with a request it is given (a mutation's `.newData`).
    static func requestTaker(isEnabled: Bool = true) -> EntryObserver {
        EntryObserver(isEnabled: isEnabled, refetch: { _ in }, refetchWithRequest: { _ in true })
    }

    /// The calls a refetch with a request is named by in an expected action.
    static func refetchWithRequest(_ observers: UInt64...) -> EntryAction {
        .refetchWithRequest(observers.map { ObserverCall(observer: $0) { _ in } })
    }

    /// The call an observer's refetch is named by in an expected action.
    static func refetch(_ observer: UInt64, _ reason: FetchReason) -> EntryAction {
        .refetch(ObserverCall(observer: observer) { _ in }, reason)
    }

    static func started(_ id: UInt64, _ reason: FetchReason, networkMode: NetworkMode = .online) -> [EntryAction] {
        [.emit(.fetchStarted(key, reason: reason)), .startFetch(id: id, request(reason, networkMode: networkMode))]
    }

    static func waiter(_ id: UInt64) -> EntryWaiter {
        EntryWaiter(id: id)
    }
}

extension MachineScript.Step {
    static func at(_ seconds: Int64, _ event: EntryEvent, online: Bool = true, focused: Bool = true) -> Self {
        Self(event: event, at: seconds, isOnline: online, isFocused: focused)
    }

    static func fetch(
        _ seconds: Int64, _ intent: FetchIntent = .explicit, reason: FetchReason = .manual, observer: UInt64? = nil,
        waiter: UInt64? = nil, online: Bool = true, networkMode: NetworkMode = .online
    ) -> Self {
        at(
            seconds,
            .fetchRequested(
                MachineScript.request(reason, networkMode: networkMode), intent, observer: observer,
                waiter: waiter.map(EntryWaiter.init(id:))),
            online: online)
    }

    /// A read that brings no fetcher (`readRequested`), as `fetchQuery` sends it first.
    static func read(
        _ seconds: Int64, _ intent: FetchIntent, waiter: UInt64, gcTime: GCTime? = nil, online: Bool = true
    ) -> Self {
        at(
            seconds,
            .readRequested(FetchCall(reason: .manual, gcTime: gcTime), intent, waiter: EntryWaiter(id: waiter)),
            online: online)
    }

    static func succeed(_ seconds: Int64, fetch: UInt64, _ value: Int) -> Self {
        at(seconds, .fetchSucceeded(fetch: fetch, value, nil))
    }

    static func write(_ seconds: Int64, _ value: Int, origin: EntryEvent.DataOrigin = .local) -> Self {
        at(
            seconds,
            .dataSet(value, updatedAt: MachineScript.instant(seconds), .always, origin, nil, expecting: nil))
    }

    static func observe(_ seconds: Int64, _ id: UInt64, _ observer: EntryObserver = MachineScript.observer()) -> Self {
        at(seconds, .observerAdded(id, observer))
    }
}

extension EntryEvent {
    /// A fetch request of a caller who asks for `gcTime` (`fetchQuery(gcTime:)`), with no waiter.
    static func fetchRequested(gcTime: GCTime, _ intent: FetchIntent) -> EntryEvent {
        .fetchRequested(MachineScript.request(gcTime: gcTime), intent, observer: nil, waiter: nil)
    }
}
