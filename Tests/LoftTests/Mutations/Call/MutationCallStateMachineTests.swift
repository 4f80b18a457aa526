import LoftTesting
import Testing

@testable import Loft

/// The mutation call's state machine as a value: tables of events in and actions out, and a seeded random walk
/// that checks its invariants.
@Suite struct MutationCallStateMachineTests {
    typealias Machine = MutationCallStateMachine

    /// One step of a table: an event at a time (in seconds from the epoch), and the actions it must return.
    struct Step: Sendable, CustomStringConvertible {
        let event: MutationCallEvent
        let at: Int
        let actions: [MutationCallAction]

        init(_ event: MutationCallEvent, at: Int = 0, _ actions: [MutationCallAction]) {
            self.event = event
            self.at = at
            self.actions = actions
        }

        var description: String { "\(event)" }
    }

    /// A table: the machine's flags and its steps.
    struct Table: Sendable, CustomStringConvertible {
        let name: String
        let machine: Machine
        let steps: [Step]
        /// The stage after the last step.
        let stage: Machine.Stage

        var description: String { name }
    }

    static let epoch = SchedulerInstant(nanosecondsSinceEpoch: 0)
    static let gc: Int64 = 300_000_000_000

    static func machine(
        scope: Bool = false, restored: Bool = false, onMutate: Bool = true, callbacks: Bool = true,
        journal: Bool = false
    ) -> Machine {
        Machine(
            hasScope: scope, isRestored: restored, hasOnMutate: onMutate, hasSettlingCallbacks: callbacks,
            mayJournal: journal, keptFor: gc)
    }

    static func removal(at seconds: Int) -> MutationCallAction {
        .armRemoval(at: epoch.advanced(byNanoseconds: Int64(seconds) * 1_000_000_000 + gc))
    }

    static let tables: [Table] = [
        Table(
            name: "a call without scope or journal: onMutate, the request, the callbacks, settled and collected",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated, [.sendRequest]),
                Step(.requestSucceeded, [.runCallbacks(succeeded: true)]),
                Step(.callbacksFinished(callbackFailed: false), at: 1, [.publish(.updated), removal(at: 1)]),
                Step(.collected, at: 301, [.publish(.removed)]),
                Step(.collected, at: 302, []),
            ],
            stage: .collected(succeeded: true)),
        Table(
            name: "a call without onMutate goes straight to its request, saved first when it may be",
            machine: machine(onMutate: false, journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .persist, .sendRequest]),
                Step(.requestSucceeded, [.runCallbacks(succeeded: true)]),
                Step(.callbacksFinished(callbackFailed: false), [.forget, .publish(.updated), removal(at: 0)]),
            ],
            stage: .settled(succeeded: true)),
        Table(
            name: "a call without callbacks after its request settles as its request ends",
            machine: machine(onMutate: false, callbacks: false, journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .persist, .sendRequest]),
                Step(.attemptFailed(failureCount: 1), [.publish(.updated)]),
                Step(.requestFailed(failureCount: 2), at: 3, [.forget, .publish(.updated), removal(at: 3)]),
            ],
            stage: .settled(succeeded: false)),
        Table(
            name: "a journaled call is saved after onMutate, before its request, and cleared once settled",
            machine: machine(journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated, [.persist, .sendRequest]),
                Step(.requestSucceeded, [.runCallbacks(succeeded: true)]),
                Step(.callbacksFinished(callbackFailed: false), [.forget, .publish(.updated), removal(at: 0)]),
            ],
            stage: .settled(succeeded: true)),
        Table(
            name: "a restored call skips onMutate and is not saved again, but is cleared once settled",
            machine: machine(scope: true, restored: true, journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .waitForTurn]),
                Step(.turnReached, [.sendRequest]),
                Step(.requestFailed(failureCount: 1), [.publish(.updated), .runCallbacks(succeeded: false)]),
                Step(
                    .callbacksFinished(callbackFailed: false),
                    [.forget, .leaveScope, .publish(.updated), removal(at: 0)]),
            ],
            stage: .settled(succeeded: false)),
        Table(
            name: "a scoped call behind others is paused until its turn, then frees its scope when it settles",
            machine: machine(scope: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated, [.waitForTurn]),
                Step(.queued, [.publish(.updated)]),
                Step(.turnReached, [.publish(.updated), .sendRequest]),
                Step(.requestSucceeded, [.runCallbacks(succeeded: true)]),
                Step(.callbacksFinished(callbackFailed: false), [.leaveScope, .publish(.updated), removal(at: 0)]),
            ],
            stage: .settled(succeeded: true)),
        Table(
            name: "offline: paused and resumed; each failed attempt counts; a success puts the count back to 0",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated, [.sendRequest]),
                Step(.pausedForNetwork, [.publish(.updated)]),
                Step(.resumed, [.publish(.updated)]),
                Step(.attemptFailed(failureCount: 1), [.publish(.updated)]),
                Step(.attemptFailed(failureCount: 1), []),
                Step(.attemptFailed(failureCount: 2), [.publish(.updated)]),
                Step(.requestSucceeded, [.runCallbacks(succeeded: true)]),
                Step(.callbacksFinished(callbackFailed: false), [.publish(.updated), removal(at: 0)]),
            ],
            stage: .settled(succeeded: true)),
        Table(
            name: "a throwing callback fails a successful request",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated, [.sendRequest]),
                Step(.requestSucceeded, [.runCallbacks(succeeded: true)]),
                Step(.callbacksFinished(callbackFailed: true), [.publish(.updated), removal(at: 0)]),
            ],
            stage: .settled(succeeded: false)),
        Table(
            name: "a throwing onMutate sends no request, saves nothing, and runs the failure callbacks",
            machine: machine(journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.requestFailed(failureCount: 0), [.runCallbacks(succeeded: false)]),
                Step(.callbacksFinished(callbackFailed: false), [.publish(.updated), removal(at: 0)]),
            ],
            stage: .settled(succeeded: false)),
        Table(
            name: "cancelling a pending call cancels its task once; it then fails through its callbacks",
            machine: machine(scope: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated, [.waitForTurn]),
                Step(.queued, [.publish(.updated)]),
                Step(.cancelled, [.cancelTask]),
                Step(.cancelled, []),
                Step(.requestFailed(failureCount: 0), [.publish(.updated), .runCallbacks(succeeded: false)]),
                Step(.cancelled, []),
                Step(.callbacksFinished(callbackFailed: false), [.leaveScope, .publish(.updated), removal(at: 0)]),
                Step(.cancelled, []),
            ],
            stage: .settled(succeeded: false)),
        Table(
            name: "a pending call is never collected",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.collected, []),
                Step(.mutated, [.sendRequest]),
                Step(.collected, []),
            ],
            stage: .running),
    ]

    @Test("each table's events give its actions, in order", arguments: tables)
    func table(_ table: Table) {
        var machine = table.machine
        for step in table.steps {
            let now = Self.epoch.advanced(byNanoseconds: Int64(step.at) * 1_000_000_000)
            let actions = machine.handle(step.event, at: now)
            #expect(actions == step.actions, "\(table.name): \(step.event)")
        }
        #expect(machine.stage == table.stage)
    }

    @Test("status and paused follow the stage")
    func statusAndPaused() {
        var machine = Self.machine(scope: true)
        #expect(machine.status == .pending && !machine.isPaused)
        _ = machine.handle(.submitted, at: Self.epoch)
        _ = machine.handle(.mutated, at: Self.epoch)
        _ = machine.handle(.queued, at: Self.epoch)
        #expect(machine.status == .pending && machine.isPaused)
        _ = machine.handle(.turnReached, at: Self.epoch)
        _ = machine.handle(.pausedForNetwork, at: Self.epoch)
        #expect(machine.isPaused)
        _ = machine.handle(.requestSucceeded, at: Self.epoch)
        #expect(machine.status == .pending && !machine.isPaused, "pending while its callbacks run")
        _ = machine.handle(.callbacksFinished(callbackFailed: false), at: Self.epoch)
        #expect(machine.status == .success)
    }

    /// The events a call's task and the outside may send in a stage (the task sends the answer to its step;
    /// the outside may cancel or collect at any time).
    static func possibleEvents(_ machine: Machine, lastStep: MutationCallAction?) -> [MutationCallEvent] {
        var events: [MutationCallEvent] = [.cancelled, .collected]
        switch machine.stage {
        case .created: events = [.submitted]
        case .mutating: events += [.mutated, .requestFailed(failureCount: 0)]
        case .awaitingTurn: events += [.queued, .turnReached, .requestFailed(failureCount: 0)]
        case .queued: events += [.turnReached, .requestFailed(failureCount: 0)]
        case .running, .pausedOffline:
            events += [
                machine.stage == .running ? .pausedForNetwork : .resumed,
                .attemptFailed(failureCount: machine.failureCount + 1), .requestSucceeded,
                .requestFailed(failureCount: machine.failureCount + 1),
            ]
        case .settling: events += [.callbacksFinished(callbackFailed: false), .callbacksFinished(callbackFailed: true)]
        case .settled, .collected: break
        }
        return events
    }

    @Test("a random walk keeps the invariants", arguments: 0..<20)
    func randomWalk(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var machine = Self.machine(
            scope: random.next() % 2 == 0, restored: random.next() % 3 == 0, onMutate: random.next() % 2 == 0,
            callbacks: random.next() % 2 == 0, journal: random.next() % 2 == 0)
        var (persisted, forgotten, cancels, added, removed, settlements) = (0, 0, 0, 0, 0, 0)
        var step: MutationCallAction?
        for tick in 0..<60 {
            let events = Self.possibleEvents(machine, lastStep: step)
            let event = events[Int(random.next() % UInt64(events.count))]
            let wasPending = machine.isPending
            let actions = machine.handle(event, at: Self.epoch.advanced(byNanoseconds: Int64(tick)))
            persisted += actions.count { $0 == MutationCallAction.persist }
            forgotten += actions.count { $0 == MutationCallAction.forget }
            cancels += actions.count { $0 == MutationCallAction.cancelTask }
            added += actions.count { $0 == MutationCallAction.publish(.added) }
            removed += actions.count { $0 == MutationCallAction.publish(.removed) }
            settlements += actions.count { if case .armRemoval = $0 { true } else { false } }
            #expect(actions.count { $0.isStep } <= 1, "one step at a time")
            step = actions.first { $0.isStep } ?? step
            #expect(cancels <= 1, "a task is cancelled once")
            if actions.contains(MutationCallAction.cancelTask) { #expect(wasPending) }
            #expect(persisted <= 1 && forgotten <= 1, "saved once, cleared once")
            if !machine.isRestored { #expect(forgotten <= persisted, "only a saved call is cleared") }
            #expect(added <= 1 && removed <= 1 && settlements <= 1)
            if machine.isPaused { #expect(machine.status == .pending) }
        }
        if case .settled = machine.stage { #expect(!machine.isJournaled, "a settled call is no longer in the journal") }
        if case .collected = machine.stage { #expect(!machine.isJournaled) }
    }
}
