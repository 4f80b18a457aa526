import LoftTesting
import Testing

@testable import Loft

/// `follow(_:)` with scripted sources: what the client does with each change, once per client, and what a
/// failing source leaves.
@Suite(.timeLimit(.minutes(1))) struct HostFollowingTests {
    @Test("connectivity and focus reach the client, each as an event")
    func connectivityAndFocus() async {
        let test = TestQueryClient()
        let source = ScriptedHostSignals(name: "connectivity")
        #expect(test.client.follow(source.signals))
        source.send(.online(false))
        #expect(!test.client.isOnline)
        source.send(.focused(false))
        #expect(!test.client.isFocused)
        source.send(.online(true))
        #expect(test.client.isOnline)
        let described = test.events.values.compactMap { event -> String? in
            if case .hostSignal(let signal) = event { "\(signal)" } else { nil }
        }
        #expect(described == ["online false", "focused false", "online true"])
    }

    @Test("following twice is one follower; stopping stops every source and lets the client follow again")
    func oneFollower() {
        let test = TestQueryClient()
        let first = ScriptedHostSignals(name: "connectivity")
        let second = ScriptedHostSignals(name: "connectivity")
        #expect(test.client.follow(first.signals))
        #expect(!test.client.follow(second.signals))
        #expect(test.client.isFollowingHost)
        #expect(first.starts == 1 && second.starts == 0)
        test.client.stopFollowing()
        #expect(first.stops == 1 && !test.client.isFollowingHost)
        first.send(.online(false))
        #expect(test.client.isOnline, "a stopped source reaches nobody")
        test.client.stopFollowing()
        #expect(first.stops == 1)
        #expect(test.client.follow(second.signals))
        test.client.stopFollowing()
    }

    @Test("a source that cannot start, or fails later, is an event; the other sources go on")
    func failingSources() {
        let test = TestQueryClient()
        let broken = ScriptedHostSignals(name: "memory pressure", failingToStartWith: HostSignalError("open", code: 2))
        let working = ScriptedHostSignals(name: "connectivity")
        test.client.follow(HostSignals { [broken, working] })
        working.send(.failure(HostSignalError("netlink recv", code: 5)))
        let failures = test.events.values.compactMap { event -> String? in
            if case .hostSignal(.sourceFailed(let name, let error)) = event { "\(name): \(error)" } else { nil }
        }
        #expect(failures == ["memory pressure: open failed (errno 2)", "connectivity: netlink recv failed (errno 5)"])
        #expect(working.starts == 1)
        test.client.stopFollowing()
    }

    @Test("memory pressure: a warning trims what nobody observes to half the budget, critical drops all of it")
    func memoryPressure() async {
        let test = TestQueryClient(memoryBudget: .entries(8))
        for index in 0..<8 { test.client.setQueryData(index, for: QueryKey("item", index)) }
        let observed = Consumer<Int>(key: QueryKey("item", 7), client: test.client)
        let source = ScriptedHostSignals(name: "memory pressure")
        test.client.follow(source.signals)
        source.send(.memoryPressure(.warning))
        #expect(test.client.memoryUsage == 4)
        source.send(.memoryPressure(.critical))
        #expect(test.client.memoryUsage == 1, "the observed entry stays")
        #expect(observed.state.value == 7)
        let trims = test.events.values.compactMap { event -> String? in
            if case .hostSignal(let signal) = event { "\(signal)" } else { nil }
        }
        #expect(trims == ["memory pressure warning, 4 evicted", "memory pressure critical, 3 evicted"])
        let reasons = test.events.values.compactMap { event -> EvictionReason? in
            if case .evicted(_, let reason) = event { reason } else { nil }
        }
        #expect(reasons == Array(repeating: .memoryPressure, count: 7))
        test.client.stopFollowing()
    }

    @Test("without a budget, a warning trims to half what the client holds")
    func warningWithoutBudget() {
        let test = TestQueryClient()
        for index in 0..<10 { test.client.setQueryData(index, for: QueryKey("item", index)) }
        #expect(test.client.relieve(.warning) == 5)
        #expect(test.client.memoryUsage == 5)
    }
}
