import LoftTesting
import Testing

@testable import Loft

/// The retryer's state machine as a value: rows of events in and the action the last one gives out, and a
/// seeded random walk checking its invariants.
@Suite struct RetryStateMachineTests {
    struct Failure: Error {}

    /// A row: the rules of the run, its events, and the action each one gives out.
    struct Row: Sendable, CustomTestStringConvertible {
        let rule: String
        let rules: RetryStateMachine.Rules
        let steps: [(RetryStateMachine.Event, RetryStateMachine.Action)]

        var testDescription: String { rule }

        func check() {
            var machine = RetryStateMachine(rules)
            for (index, (event, expected)) in steps.enumerated() {
                #expect(machine.handle(event) == expected, "\(rule), step \(index)")
            }
        }
    }

    static func rules(
        retries: Int = 3, _ networkMode: NetworkMode = .online, query: Bool = true
    ) -> RetryStateMachine.Rules {
        RetryStateMachine.Rules(
            policy: .count(retries), networkMode: networkMode, pausesWhenUnfocused: query, waitsForMutations: query)
    }

    static func conditions(online: Bool = true, focused: Bool = true, settling: Bool = false)
        -> ClientEnvironment.Conditions
    {
        var conditions = ClientEnvironment.Conditions()
        conditions.isOnline = online
        conditions.isFocused = focused
        conditions.isSettlingMutations = settling
        return conditions
    }

    static let failed = RetryStateMachine.Event.attemptFailed(
        Failure(), isTaskCancelled: false, isRetryCancelled: false)

    static let rows: [Row] = [
        Row(
            rule: "online, a first attempt starts at once", rules: rules(),
            steps: [(.started(conditions()), .attempt)]),
        Row(
            rule: "offline, an online-mode first attempt waits paused until it may start", rules: rules(),
            steps: [
                (.started(conditions(online: false)), .pause(.untilItMayStart)),
                (.pauseEnded(isRetryCancelled: false), .attempt),
            ]),
        Row(
            rule: "offline, always and offlineFirst start at once", rules: rules(.offlineFirst),
            steps: [(.started(conditions(online: false)), .attempt)]),
        Row(
            rule: "failures back off 1 s, 2 s, 4 s, then the run fails with its count", rules: rules(),
            steps: [
                (.started(conditions()), .attempt),
                (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(), isRetryCancelled: false), .attempt),
                (failed, .backOff(.seconds(2), failureCount: 2)),
                (.backOffEnded(conditions(), isRetryCancelled: false), .attempt),
                (failed, .backOff(.seconds(4), failureCount: 3)),
                (.backOffEnded(conditions(), isRetryCancelled: false), .attempt),
                (failed, .fail(failureCount: 4)),
            ]),
        Row(
            rule: "retry .never: the first failure ends the run", rules: rules(retries: 0),
            steps: [(.started(conditions()), .attempt), (failed, .fail(failureCount: 1))]),
        Row(
            rule: "a retry due offline waits paused, then runs", rules: rules(),
            steps: [
                (.started(conditions()), .attempt), (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(online: false), isRetryCancelled: false), .pause(.untilItMayContinue)),
                (.pauseEnded(isRetryCancelled: false), .attempt),
            ]),
        Row(
            rule: "a query's retry due unfocused waits; a mutation's does not", rules: rules(),
            steps: [
                (.started(conditions()), .attempt), (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(focused: false), isRetryCancelled: false), .pause(.untilItMayContinue)),
            ]),
        Row(
            rule: "a mutation's retry due unfocused runs", rules: rules(query: false),
            steps: [
                (.started(conditions()), .attempt), (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(focused: false), isRetryCancelled: false), .attempt),
            ]),
        Row(
            rule: "a query's retry waits while resumed mutation calls settle; a mutation's does not",
            rules: rules(),
            steps: [
                (.started(conditions()), .attempt), (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(settling: true), isRetryCancelled: false), .pause(.untilItMayContinue)),
            ]),
        Row(
            rule: "always mode: a retry due offline runs", rules: rules(.always),
            steps: [
                (.started(conditions(online: false)), .attempt), (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(online: false), isRetryCancelled: false), .attempt),
            ]),
        Row(
            rule: "retries cancelled (the last observer left) before a failure: the run fails at once",
            rules: rules(),
            steps: [
                (.started(conditions()), .attempt),
                (.attemptFailed(Failure(), isTaskCancelled: false, isRetryCancelled: true), .fail(failureCount: 1)),
            ]),
        Row(
            rule: "retries cancelled during the back-off: the run fails when it ends", rules: rules(),
            steps: [
                (.started(conditions()), .attempt), (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(), isRetryCancelled: true), .fail(failureCount: 1)),
            ]),
        Row(
            rule: "retries cancelled during a retry's pause: the run fails when it ends", rules: rules(),
            steps: [
                (.started(conditions()), .attempt), (failed, .backOff(.seconds(1), failureCount: 1)),
                (.backOffEnded(conditions(online: false), isRetryCancelled: false), .pause(.untilItMayContinue)),
                (.pauseEnded(isRetryCancelled: true), .fail(failureCount: 1)),
            ]),
        Row(
            rule: "a paused first attempt runs when its pause ends, whatever the retries", rules: rules(),
            steps: [
                (.started(conditions(online: false)), .pause(.untilItMayStart)),
                (.pauseEnded(isRetryCancelled: true), .attempt),
            ]),
        Row(
            rule: "a task cancelled during an attempt ends the run as cancelled", rules: rules(),
            steps: [
                (.started(conditions()), .attempt),
                (.attemptFailed(Failure(), isTaskCancelled: true, isRetryCancelled: false), .cancel),
            ]),
        Row(
            rule: "a task cancelled while the run waits ends it as cancelled", rules: rules(),
            steps: [(.started(conditions(online: false)), .pause(.untilItMayStart)), (.taskCancelled, .cancel)]),
    ]

    @Test("each row's events give its actions", arguments: rows)
    func table(_ row: Row) { row.check() }

    @Test("the pauses end as the rules say: a first attempt by the network alone, a query's retry by focus too")
    func pausesEnd() {
        let query = RetryStateMachine(Self.rules())
        #expect(!query.isOver(.untilItMayStart, under: Self.conditions(online: false)))
        #expect(query.isOver(.untilItMayStart, under: Self.conditions(focused: false)))
        #expect(!query.isOver(.untilItMayStart, under: Self.conditions(settling: true)))
        #expect(!query.isOver(.untilItMayContinue, under: Self.conditions(focused: false)))
        let mutation = RetryStateMachine(Self.rules(query: false))
        #expect(mutation.isOver(.untilItMayContinue, under: Self.conditions(focused: false, settling: true)))
        #expect(!mutation.isOver(.untilItMayContinue, under: Self.conditions(online: false)))
    }

    @Test("invariants hold over 2,000 seeded random runs")
    func invariants() {
        for seed in 0..<2_000 {
            var random = SeededRandom(seed: UInt64(seed))
            let modes: [NetworkMode] = [.online, .always, .offlineFirst]
            let rules = Self.rules(
                retries: Int.random(in: 0...4, using: &random), modes.randomElement(using: &random) ?? .online,
                query: Bool.random(using: &random))
            var machine = RetryStateMachine(rules)
            let context = "seed \(seed)"
            func condition() -> ClientEnvironment.Conditions {
                Self.conditions(
                    online: Int.random(in: 0..<3, using: &random) > 0, focused: Bool.random(using: &random),
                    settling: Int.random(in: 0..<4, using: &random) == 0)
            }
            var action = machine.handle(.started(condition()))
            var attempts = 0
            var lastFailures = 0
            var succeeded = false
            walk: while !machine.hasEnded {
                let event: RetryStateMachine.Event
                switch action {
                case .attempt:
                    attempts += 1
                    #expect(machine.pause == nil, "an attempt while paused: \(context)")
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0:
                        // A success needs no decision: the retryer returns the value.
                        succeeded = true
                        break walk
                    case 1:
                        event = .attemptFailed(
                            Failure(), isTaskCancelled: true, isRetryCancelled: Bool.random(using: &random))
                    default:
                        event = .attemptFailed(
                            Failure(), isTaskCancelled: false,
                            isRetryCancelled: Int.random(in: 0..<6, using: &random) == 0)
                    }
                case .backOff(_, let failureCount):
                    #expect(failureCount == lastFailures + 1, "failures are counted one by one: \(context)")
                    #expect(failureCount <= 4, "more retries than the policy allows: \(context)")
                    lastFailures = failureCount
                    event =
                        Int.random(in: 0..<20, using: &random) == 0
                        ? .taskCancelled
                        : .backOffEnded(condition(), isRetryCancelled: Int.random(in: 0..<6, using: &random) == 0)
                case .pause(let pause):
                    #expect(machine.pause == pause, "the machine names the pause it asked for: \(context)")
                    event =
                        Int.random(in: 0..<20, using: &random) == 0
                        ? .taskCancelled : .pauseEnded(isRetryCancelled: Bool.random(using: &random))
                case .fail, .cancel:
                    Issue.record("an ending action while the run goes on: \(context)")
                    return
                }
                action = machine.handle(event)
            }
            if succeeded {
                #expect(action == .attempt && attempts > 0, "a success without an attempt: \(context)")
                continue
            }
            switch action {
            case .fail(let failureCount):
                #expect(failureCount == machine.failureCount && failureCount >= 1, "a failure's count: \(context)")
                #expect(failureCount <= attempts, "more failures than attempts: \(context)")
            case .cancel: break
            default: Issue.record("the run ended with \(action): \(context)")
            }
        }
    }
}
