import LoftTesting
import Testing

@testable import Loft

/// `setFocused` and `setOnline` skip an entry when its mirrored `firstRefetch(on:)` says the trigger leaves it
/// alone. The mirror must never skip an entry the machine would refetch: for every combination of observer
/// options and data, the mirror and the machine agree, at every instant.
@Suite struct TriggerMirrorTests {
    private static let start = SchedulerInstant(secondsSinceEpoch: 1_767_225_600)

    /// One observer of an entry, as the mirror sees it.
    private struct Case: CustomStringConvertible {
        var isEnabled = true
        var canFetch = true
        var staleTime: StaleTime = .zero
        var onFocus: RefetchTrigger = .ifStale
        var onReconnect: RefetchTrigger = .ifStale

        var observer: EntryObserver {
            var observer = EntryObserver(
                isEnabled: isEnabled, staleTime: staleTime, refetchOnFocus: onFocus, refetchOnReconnect: onReconnect,
                refetch: nil)
            if canFetch { observer.refetch = Self.ignoreRefetch }
            return observer
        }

        private static func ignoreRefetch(_ reason: FetchReason) {}

        var description: String {
            "enabled \(isEnabled), fetches \(canFetch), staleTime \(staleTime), focus \(onFocus), "
                + "reconnect \(onReconnect)"
        }
    }

    /// What an entry holds before the trigger comes.
    private enum Data: CaseIterable {
        case none, fresh, invalidated
    }

    private static var cases: [Case] {
        var cases: [Case] = []
        for isEnabled in [true, false] {
            for canFetch in [true, false] {
                for staleTime in [StaleTime.zero, .seconds(10), .infinity, .static] {
                    for onFocus in [RefetchTrigger.always, .ifStale, .never] {
                        cases.append(
                            Case(
                                isEnabled: isEnabled, canFetch: canFetch, staleTime: staleTime, onFocus: onFocus,
                                onReconnect: onFocus == .always ? .never : .always))
                    }
                }
            }
        }
        return cases
    }

    private static func machine(observers: [Case], data: Data) -> EntryStateMachine {
        var machine = EntryStateMachine(gcTime: .seconds(300))
        let conditions = ClientEnvironment.Conditions()
        for (index, observer) in observers.enumerated() {
            _ = machine.handle(
                .observerAdded(UInt64(index + 1), observer.observer), of: "m", at: start, conditions: conditions)
        }
        if data != .none {
            _ = machine.handle(
                .dataSet(1, updatedAt: start, .always, .local, nil, expecting: nil), of: "m", at: start,
                conditions: conditions)
        }
        if data == .invalidated {
            _ = machine.handle(.invalidated(.none), of: "m", at: start, conditions: conditions)
        }
        return machine
    }

    private static func refetches(
        _ machine: EntryStateMachine, on trigger: ObserverTally.Trigger, at now: SchedulerInstant
    ) -> Bool {
        var machine = machine
        let event: EntryEvent = trigger == .focus ? .focusRegained : .reconnected
        let output = machine.handle(event, of: "m", at: now, conditions: ClientEnvironment.Conditions())
        return output.actions.contains {
            if case .refetch = $0 { return true }
            return false
        }
    }

    @Test("the mirror says 'may refetch' exactly when the machine refetches, for one observer of every kind")
    func mirrorAgreesWithMachine() {
        let instants = [Self.start, Self.start + .seconds(9), Self.start + .seconds(10), Self.start + .seconds(3600)]
        var checked = 0
        for observer in Self.cases {
            for data in Data.allCases {
                let machine = Self.machine(observers: [observer], data: data)
                for trigger in [ObserverTally.Trigger.focus, .reconnect] {
                    for now in instants {
                        let first = machine.firstRefetch(on: trigger)
                        let predicted = first.map { $0 <= now } ?? false
                        let actual = Self.refetches(machine, on: trigger, at: now)
                        #expect(predicted == actual, "\(observer), data \(data), \(trigger), at +\(now - Self.start)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == Self.cases.count * 3 * 2 * 4)
    }

    @Test("the mirror agrees with the machine for every pair of observers that can fetch (mixed stale times)")
    func mirrorAgreesForPairs() {
        let fetching = Self.cases.filter { $0.isEnabled && $0.canFetch }
        let instants = [Self.start, Self.start + .seconds(9), Self.start + .seconds(10), Self.start + .seconds(3600)]
        var checked = 0
        for first in fetching {
            for second in fetching {
                for data in Data.allCases {
                    let machine = Self.machine(observers: [first, second], data: data)
                    for trigger in [ObserverTally.Trigger.focus, .reconnect] {
                        for now in instants {
                            let predicted = machine.firstRefetch(on: trigger).map { $0 <= now } ?? false
                            let actual = Self.refetches(machine, on: trigger, at: now)
                            #expect(predicted == actual, "\(first) + \(second), data \(data), \(trigger)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == fetching.count * fetching.count * 3 * 2 * 4)
    }

    @Test("with several observers the mirror takes the earliest; one leaving or changing moves it")
    func mirrorFollowsObservers() {
        let conditions = ClientEnvironment.Conditions()
        var machine = Self.machine(
            observers: [Case(staleTime: .seconds(60)), Case(staleTime: .seconds(10), onFocus: .never)], data: .fresh)
        #expect(machine.firstRefetch(on: .focus) == Self.start + .seconds(60))
        #expect(machine.firstRefetch(on: .reconnect) == Self.start + .seconds(10))
        _ = machine.handle(
            .observerChanged(1, Case(onFocus: .always).observer), of: "m", at: Self.start, conditions: conditions)
        #expect(machine.firstRefetch(on: .focus) == Staleness.anyInstant)
        _ = machine.handle(.observerRemoved(1), of: "m", at: Self.start, conditions: conditions)
        #expect(machine.firstRefetch(on: .focus) == nil)
        _ = machine.handle(.removed, of: "m", at: Self.start, conditions: conditions)
        #expect(machine.firstRefetch(on: .reconnect) == nil)
    }

    @Test("setFocused refetches an entry that turned stale by time alone, and one whose options changed to always")
    func focusPassSeesTimeAndOptionChanges() async {
        let harness = TestQueryClient()
        let aging = Query<Void, Int>(
            key: "aging", behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(10)),
            client: harness.client
        ) { 1 }
        let pinned = Query<Void, Int>(
            key: "pinned", behavior: .startImmediately(()), options: QueryOptions(staleTime: .infinity),
            client: harness.client
        ) { 2 }
        await harness.client.waitUntilIdle()
        harness.client.setFocused(false)
        harness.client.setFocused(true)
        await harness.advance(by: .seconds(10))
        harness.client.setFocused(false)
        var options = pinned.options
        options.refetchOnFocus = .always
        pinned.setOptions(options)
        harness.client.setFocused(true)
        await harness.client.waitUntilIdle()
        #expect(harness.fetchReasons(for: "aging") == [.firstUse, .focus])
        #expect(harness.fetchReasons(for: "pinned") == [.firstUse, .focus])
        _ = (aging, pinned)
    }
}
