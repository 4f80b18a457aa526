import LoftTesting
import Testing

@testable import Loft

/// A seeded random walk over the entry's state machine: thousands of event sequences, each checked after every
/// event against the invariants that must always hold, whatever the order of events. A failure names its seed
/// and step; the walk is the same on every run, so the seed reproduces it.
@Suite struct EntryStateMachineModelTests {
    /// What the walk knows besides the machine, to check the invariants.
    private struct Model {
        /// The snapshot from before the fetch in flight (or the first of the fetches that replaced one another),
        /// when a request started it from idle; nil when it was started another way (a reset, a trigger) or none
        /// runs.
        var before: EntrySnapshot?
        /// Data was written since that fetch started: a cancel keeps it.
        var isDataWritten = false
        var nextWaiter: UInt64 = 0
    }

    @Test("invariants hold over 2,000 seeded random sequences of 60 events", arguments: 0..<20)
    func invariantsHold(batch: UInt64) {
        for seed in batch * 100..<(batch + 1) * 100 {
            walk(seed: seed, steps: 60)
        }
    }

    private func walk(seed: UInt64, steps: Int) {
        var random = SeededRandom(seed: seed)
        var machine = EntryStateMachine(
            gcTime: .seconds(Int.random(in: 1...300, using: &random)))
        var model = Model()
        var now: Int64 = 0
        for step in 0..<steps {
            now += Int64.random(in: 0...120, using: &random)
            var conditions = ClientEnvironment.Conditions()
            conditions.isOnline = Int.random(in: 0..<4, using: &random) > 0
            conditions.isFocused = Int.random(in: 0..<4, using: &random) > 0
            let event = Self.randomEvent(machine, &model, now: now, using: &random)
            let previous = machine
            let output = machine.handle(
                event, of: MachineScript.key, at: MachineScript.instant(now), conditions: conditions)
            let context = "seed \(seed), step \(step), \(event)"
            check(previous, machine, output, event, &model, context)
        }
    }

    // MARK: - Invariants

    private func check(
        _ previous: EntryStateMachine, _ machine: EntryStateMachine, _ output: EntryStateMachine.Output,
        _ event: EntryEvent, _ model: inout Model, _ context: String
    ) {
        let starts = output.actions.filter {
            if case .startFetch = $0 { return true }
            return false
        }
        // The version only grows.
        #expect(machine.version >= previous.version, "the version went back: \(context)")
        // One fetch in flight at most: an event starts one fetch at most, and the one in flight is the last
        // one started.
        #expect(starts.count <= 1, "two fetches started at once: \(context)")
        if case .startFetch(let id, _)? = starts.last {
            #expect(machine.fetchID == id, "the fetch in flight is not the last started: \(context)")
        }
        // A removed entry takes no event.
        if previous.isRemoved {
            #expect(machine.version == previous.version, "a removed entry changed: \(context)")
            let onlyAnswers = output.actions.allSatisfy {
                switch $0 {
                case .resume, .cancelTask: true
                default: false
                }
            }
            #expect(onlyAnswers, "a removed entry acted: \(context)")
        }
        // The key's staleTime (kept by the tally) is the rule stated plainly: the shortest among the enabled
        // observers that judge, else among the enabled ones that inherit, else none.
        if !machine.isRemoved {
            let enabled = machine.observers.values.filter(\.isEnabled)
            let judges = enabled.filter(\.judgesFreshness).map(\.staleTime)
            let fallbacks = enabled.filter { !$0.judgesFreshness }.map(\.staleTime)
            let expected = (judges.isEmpty ? fallbacks : judges).reduce(nil) { (shortest: StaleTime?, next) in
                shortest.map { StaleTime.shorter($0, next) } ?? next
            }
            #expect(machine.snapshot.staleTime == expected, "the key's staleTime is not the rule's: \(context)")
        }
        // The audience is out of line only while it holds something: every event leaves none that is empty,
        // and one is there whenever an observer or a waiter is.
        #expect(machine.audienceStorage.allSatisfy { !$0.isEmpty }, "an empty audience kept: \(context)")
        #expect(machine.audienceStorage.count <= 1, "more than one audience: \(context)")
        if !machine.observers.isEmpty || !machine.fetchWaiters.isEmpty {
            #expect(!machine.audienceStorage.isEmpty, "observers or waiters without an audience: \(context)")
        }
        // No collection deadline while observed or fetching.
        if !machine.observers.isEmpty || machine.fetch != nil {
            #expect(machine.collectionDeadline == nil, "a gc deadline while in use: \(context)")
        }
        // An event about a fetch that is not the one in flight changes nothing.
        if let id = Self.fetchID(of: event), id != previous.fetchID {
            // Timers follow every event (time went by since the last one); nothing else may come out.
            let acts = output.actions.filter {
                if case .setAlarm = $0 { return false }
                return true
            }
            #expect(acts.isEmpty, "a stale fetch acted: \(context)")
            #expect(machine.version == previous.version, "a stale fetch changed the entry: \(context)")
        }
        // A read that asks for its fetcher changes nothing and acts in no way: its request follows.
        if output.needsFetcher {
            #expect(output.actions.isEmpty, "a read that asked for its fetcher acted: \(context)")
            #expect(machine.version == previous.version, "a read that asked for its fetcher changed: \(context)")
            #expect(
                machine.fetchWaiters == previous.fetchWaiters, "a read that asked for its fetcher waits: \(context)")
            #expect(machine.collectionDeadline == previous.collectionDeadline, "its gc deadline moved: \(context)")
        }
        checkCancel(previous, machine, event, &model, context)
        if output.isStored { model.isDataWritten = true }
        // What the model knows of the fetch in flight.
        if machine.fetch == nil {
            model.before = nil
            model.isDataWritten = false
        } else if previous.fetch == nil {
            if case .fetchRequested = event {
                model.before = previous.snapshot
            } else {
                model.before = nil
            }
            model.isDataWritten = false
        } else if machine.fetchID != previous.fetchID, case .reset = event {
            // A reset cancels the fetch and refetches from the reset state (of an entry only consumers
            // observe): the new fetch's state to restore is that one.
            model.before = nil
            model.isDataWritten = false
        }
        // Any other replacement (an explicit refetch, an invalidation) keeps the first fetch's state to restore.
    }

    /// A cancel with revert restores exactly the snapshot from before the fetch, unless data was written since.
    private func checkCancel(
        _ previous: EntryStateMachine, _ machine: EntryStateMachine, _ event: EntryEvent, _ model: inout Model,
        _ context: String
    ) {
        guard case .cancelRequested(revert: true) = event, previous.fetch != nil, !previous.isRemoved,
            let before = model.before, !model.isDataWritten
        else { return }
        let after = machine.snapshot
        #expect(areEqual(after.data, before.data), "cancel changed the data: \(context)")
        #expect(after.dataVersion == before.dataVersion, "cancel changed the data's version: \(context)")
        #expect(after.status == before.status, "cancel changed the status: \(context)")
        #expect(after.dataUpdatedAt == before.dataUpdatedAt, "cancel changed dataUpdatedAt: \(context)")
        #expect(after.isInvalidated == before.isInvalidated, "cancel changed invalidation: \(context)")
        #expect(after.failureCount == before.failureCount, "cancel changed the failure count: \(context)")
        #expect(
            after.error.map { String(reflecting: $0) } == before.error.map { String(reflecting: $0) },
            "cancel changed the error: \(context)")
        #expect(after.fetchStatus == .idle, "a cancelled fetch is not idle: \(context)")
    }

    private static func fetchID(of event: EntryEvent) -> UInt64? {
        switch event {
        case .attemptFailed(let id, _, _), .fetchPaused(let id), .fetchContinued(let id), .fetchSucceeded(let id, _, _),
            .fetchFailed(let id, _, _):
            id
        default:
            nil
        }
    }

    // MARK: - Events

    private static let reasons: [FetchReason] = [.manual, .appear, .focus, .reconnect, .interval, .invalidation]
    private static let staleTimes: [StaleTime] = [.zero, .seconds(30), .infinity, .static]
    private static let gcTimes: [GCTime] = [.zero, .seconds(10), .seconds(300), .infinity]
    private static let triggers: [RefetchTrigger] = [.always, .ifStale, .never]

    private static func randomEvent(
        _ machine: EntryStateMachine, _ model: inout Model, now: Int64, using random: inout SeededRandom
    ) -> EntryEvent {
        let fetchID = machine.fetchID ?? machine.nextFetchID
        // Mostly the fetch in flight; now and then an older or a future one.
        let someFetch =
            Int.random(in: 0..<4, using: &random) > 0 ? fetchID : UInt64.random(in: 0...fetchID + 1, using: &random)
        let observer = UInt64.random(in: 1...4, using: &random)
        switch Int.random(in: 0..<22, using: &random) {
        case 0...3:
            let intents: [FetchIntent] = [
                .explicit, .trigger, .ifStale(staleTimes.randomElement(using: &random) ?? .zero), .ifMissing,
                .appear(.seconds(30), triggers.randomElement(using: &random) ?? .ifStale),
                .interval(inBackground: Bool.random(using: &random)),
            ]
            let waiter: EntryWaiter? = Bool.random(using: &random) ? nextWaiter(&model) : nil
            if let waiter, Int.random(in: 0..<3, using: &random) == 0 {
                // A read without its fetcher, as `fetchQuery` sends it first.
                let reads: [FetchIntent] = [.ifStale(staleTimes.randomElement(using: &random) ?? .zero), .ifMissing]
                let call = FetchCall(reason: .manual, gcTime: gcTimes.randomElement(using: &random))
                return .readRequested(call, reads.randomElement(using: &random) ?? .ifMissing, waiter: waiter)
            }
            let modes: [NetworkMode] = [.online, .always, .offlineFirst]
            return .fetchRequested(
                MachineScript.request(
                    reasons.randomElement(using: &random) ?? .manual,
                    networkMode: modes.randomElement(using: &random) ?? .online),
                intents.randomElement(using: &random) ?? .explicit,
                observer: Bool.random(using: &random) ? observer : nil, waiter: waiter)
        case 4, 5:
            return .fetchSucceeded(fetch: someFetch, Int.random(in: 0..<3, using: &random), nil)
        case 6:
            return .fetchFailed(fetch: someFetch, APIError.offline, failureCount: Int.random(in: 1...3, using: &random))
        case 7:
            return .attemptFailed(
                fetch: someFetch, failureCount: Int.random(in: 1...3, using: &random), error: CancellationError())
        case 8:
            return Bool.random(using: &random) ? .fetchPaused(fetch: someFetch) : .fetchContinued(fetch: someFetch)
        case 9:
            return .cancelRequested(revert: Int.random(in: 0..<3, using: &random) > 0)
        case 10:
            return .waiterJoined(nextWaiter(&model), skipsPaused: Bool.random(using: &random))
        case 11:
            return .waiterLeft(EntryWaiter(id: UInt64.random(in: 1...max(1, model.nextWaiter), using: &random)))
        case 12, 13:
            var options = MachineScript.observer(
                staleTime: staleTimes.randomElement(using: &random) ?? .zero,
                gcTime: gcTimes.randomElement(using: &random) ?? .zero,
                isEnabled: Int.random(in: 0..<4, using: &random) > 0,
                onFocus: triggers.randomElement(using: &random) ?? .ifStale,
                onReconnect: triggers.randomElement(using: &random) ?? .ifStale)
            if Int.random(in: 0..<3, using: &random) == 0 {
                // A consumer: it cannot fetch, and may judge freshness by its own staleTime or inherit the key's.
                options.refetch = nil
                options.judgesFreshness = Bool.random(using: &random)
            }
            return machine.observers[observer] == nil
                ? .observerAdded(observer, options) : .observerChanged(observer, options)
        case 14, 15:
            return .observerRemoved(observer)
        case 16:
            return .dataSet(
                Int.random(in: 0..<3, using: &random), updatedAt: MachineScript.instant(now), .always,
                .local,
                nil, expecting: nil)
        case 17:
            let types: [RefetchType] = [.active, .inactive, .all, .none]
            return .invalidated(types.randomElement(using: &random) ?? .active)
        case 18:
            return [.refetchRequested(.manual), .reset].randomElement(using: &random) ?? .reset
        case 19:
            return Bool.random(using: &random) ? .focusRegained : .reconnected
        case 20:
            // Now and then the entry goes.
            return Int.random(in: 0..<5, using: &random) == 0 ? .removed : .alarmRang(MachineScript.instant(now))
        default:
            return .alarmRang(machine.alarm ?? MachineScript.instant(now))
        }
    }

    private static func nextWaiter(_ model: inout Model) -> EntryWaiter {
        model.nextWaiter += 1
        return EntryWaiter(id: model.nextWaiter)
    }
}
