import LoftTesting
import Testing

@testable import Loft

/// The mutation call's state machine as a value: tables of events in and actions out (a row per rule of the
/// machine's file, named by its number), the functions that state its other rules, and a seeded random walk
/// that checks its invariants.
@Suite struct MutationCallStateMachineTests {
    typealias Machine = MutationCallStateMachine

    struct Boom: Error, CustomStringConvertible {
        let name: String
        var description: String { name }
    }

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

    /// A table: the machine's flags, its steps, and where it ends: its stage, and the outcome it keeps.
    struct Table: Sendable, CustomStringConvertible {
        let name: String
        let machine: Machine
        let steps: [Step]
        /// The stage after the last step.
        let stage: Machine.Stage
        /// The response, error and failure reason kept after the last step (their descriptions).
        var kept: (response: String?, error: String?, reason: String?) = (nil, nil, nil)

        var description: String { name }
    }

    static let epoch = SchedulerInstant(nanosecondsSinceEpoch: 0)
    static let gc: Int64 = 300_000_000_000
    static let id: UInt64 = 7
    /// A task for the rows that attach one (it does nothing).
    static let task = MutationTask { .success(()) }

    static func machine(
        scope: Bool = false, restored: Bool = false, onMutate: Bool = true, callbacks: Bool = true,
        journal: Bool = false, invalidation: Machine.Invalidation? = nil
    ) -> Machine {
        Machine(
            Machine.Flags(
                id: id, hasScope: scope, isRestored: restored, hasOnMutate: onMutate, hasSettlingCallbacks: callbacks,
                mayJournal: journal, keptFor: gc, invalidation: invalidation))
    }

    static func removal(at seconds: Int) -> MutationCallAction {
        .armRemoval(at: epoch.advanced(byNanoseconds: Int64(seconds) * 1_000_000_000 + gc))
    }

    static func callbacks(
        _ outcome: Result<any Sendable, any Error>, context: (any Sendable)? = (),
        invalidation: Machine.Invalidation? = nil
    ) -> MutationCallAction {
        .runCallbacks(MutationCallHandOff(outcome, context: context, invalidation: invalidation))
    }

    static let ok: Result<any Sendable, any Error> = .success(2)
    static let down = Boom(name: "down")
    static let cancelledError = MutationError.cancelled(id: id)
    static let afterSuccess = Machine.Invalidation(moment: .succeeded, waits: false)
    static let afterAny = Machine.Invalidation(moment: .settled, waits: true)

    static let tables: [Table] = [
        Table(
            name: "2, 10, 11: onMutate, the request, the callbacks with its context, settled and collected once",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated(context: "ctx"), [.sendRequest]),
                Step(.requestSucceeded(response: 2), [callbacks(ok, context: "ctx")]),
                Step(
                    .callbacksFinished(errors: []), at: 1,
                    [.publish(.updated), removal(at: 1), .finish(MutationCallHandOff(ok))]),
                Step(.collected, at: 301, [.publish(.removed)]),
                Step(.collected, at: 302, []),
            ],
            stage: .collected(succeeded: true), kept: ("2", nil, nil)),
        Table(
            name: "3: a call without onMutate goes straight to its request, saved first when it may be",
            machine: machine(onMutate: false, journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .persist, .sendRequest]),
                Step(.requestSucceeded(response: 2), [callbacks(ok)]),
                Step(
                    .callbacksFinished(errors: []),
                    [.forget, .publish(.updated), removal(at: 0), .finish(MutationCallHandOff(ok))]),
            ],
            stage: .settled(succeeded: true), kept: ("2", nil, nil)),
        Table(
            name:
                "5, 6, 8: without callbacks it settles as its request ends; the last failure is the error and the reason",
            machine: machine(onMutate: false, callbacks: false, journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .persist, .sendRequest]),
                Step(.attemptFailed(failureCount: 1, error: Boom(name: "first")), [.publish(.updated)]),
                Step(
                    .requestFailed(failureCount: 2, error: down), at: 3,
                    [.forget, .publish(.updated), removal(at: 3), .finish(MutationCallHandOff(.failure(down)))]),
            ],
            stage: .settled(succeeded: false), kept: (nil, "down", "down")),
        Table(
            name: "3: a journaled call is saved after onMutate, before its request, and cleared once settled",
            machine: machine(journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated(context: ()), [.persist, .sendRequest]),
                Step(.requestSucceeded(response: 2), [callbacks(ok)]),
                Step(
                    .callbacksFinished(errors: []),
                    [.forget, .publish(.updated), removal(at: 0), .finish(MutationCallHandOff(ok))]),
            ],
            stage: .settled(succeeded: true), kept: ("2", nil, nil)),
        Table(
            name:
                "2, 3: a restored call skips onMutate, is not saved again, gets no context, and is cleared once settled",
            machine: machine(scope: true, restored: true, journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .waitForTurn]),
                Step(.turnReached, [.sendRequest]),
                Step(
                    .requestFailed(failureCount: 1, error: down),
                    [.publish(.updated), callbacks(.failure(down), context: nil)]),
                Step(
                    .callbacksFinished(errors: []),
                    [
                        .forget, .leaveScope, .publish(.updated), removal(at: 0),
                        .finish(MutationCallHandOff(.failure(down))),
                    ]),
            ],
            stage: .settled(succeeded: false), kept: (nil, "down", "down")),
        Table(
            name: "4: a scoped call behind others is paused until its turn, then frees its scope when it settles",
            machine: machine(scope: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated(context: ()), [.waitForTurn]),
                Step(.queued, [.publish(.updated)]),
                Step(.turnReached, [.publish(.updated), .sendRequest]),
                Step(.requestSucceeded(response: 2), [callbacks(ok)]),
                Step(
                    .callbacksFinished(errors: []),
                    [.leaveScope, .publish(.updated), removal(at: 0), .finish(MutationCallHandOff(ok))]),
            ],
            stage: .settled(succeeded: true), kept: ("2", nil, nil)),
        Table(
            name:
                "5: offline: paused and resumed; each failed attempt counts; a success puts the count back and clears the reason",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated(context: ()), [.sendRequest]),
                Step(.pausedForNetwork, [.publish(.updated)]),
                Step(.resumed, [.publish(.updated)]),
                Step(.attemptFailed(failureCount: 1, error: down), [.publish(.updated)]),
                Step(.attemptFailed(failureCount: 1, error: down), []),
                Step(.attemptFailed(failureCount: 2, error: down), [.publish(.updated)]),
                Step(.requestSucceeded(response: 2), [callbacks(ok)]),
                Step(
                    .callbacksFinished(errors: []),
                    [.publish(.updated), removal(at: 0), .finish(MutationCallHandOff(ok))]),
            ],
            stage: .settled(succeeded: true), kept: ("2", nil, nil)),
        Table(
            name: "6, 8: the first error a callback threw wins and fails a successful request; no response is kept",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.mutated(context: ()), [.sendRequest]),
                Step(.requestSucceeded(response: 2), [callbacks(ok)]),
                Step(
                    .callbacksFinished(errors: [Boom(name: "a"), Boom(name: "b")]),
                    [.publish(.updated), removal(at: 0), .finish(MutationCallHandOff(.failure(Boom(name: "a"))))]),
            ],
            stage: .settled(succeeded: false), kept: (nil, "a", nil)),
        Table(
            name:
                "2, 3: a throwing onMutate sends no request, saves nothing, and runs the failure callbacks without a context",
            machine: machine(journal: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.requestFailed(failureCount: 0, error: down), [callbacks(.failure(down), context: nil)]),
                Step(
                    .callbacksFinished(errors: []),
                    [.publish(.updated), removal(at: 0), .finish(MutationCallHandOff(.failure(down)))]),
            ],
            stage: .settled(succeeded: false), kept: (nil, "down", "down")),
        Table(
            name:
                "9: cancelling a pending call cancels its task once; it then fails as cancelled through its callbacks",
            machine: machine(scope: true),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.taskAttached(task), []),
                Step(.mutated(context: ()), [.waitForTurn]),
                Step(.queued, [.publish(.updated)]),
                Step(.cancelled, [.cancelTask(task)]),
                Step(.cancelled, []),
                Step(
                    .requestFailed(failureCount: 0, error: CancellationError()),
                    [.publish(.updated), callbacks(.failure(cancelledError))]),
                Step(.cancelled, []),
                Step(
                    .callbacksFinished(errors: []),
                    [
                        .leaveScope, .publish(.updated), removal(at: 0),
                        .finish(MutationCallHandOff(.failure(cancelledError))),
                    ]),
                Step(.cancelled, []),
            ],
            stage: .settled(succeeded: false), kept: (nil, "\(cancelledError)", "\(cancelledError)")),
        Table(
            name:
                "9: a task attached after the call was cancelled is cancelled at once; one attached after its request is not kept",
            machine: machine(onMutate: false),
            steps: [
                Step(.submitted, [.publish(.added), .sendRequest]),
                Step(.cancelled, []),
                Step(.taskAttached(task), [.cancelTask(task)]),
                Step(
                    .requestFailed(failureCount: 0, error: CancellationError()), [callbacks(.failure(cancelledError))]
                ),
                Step(.taskAttached(task), []),
            ],
            stage: .settling(succeeded: false), kept: (nil, nil, "\(cancelledError)")),
        Table(
            name:
                "9: a task cancelled from outside fails the call as cancelled; a fetcher's own CancellationError does not",
            machine: machine(onMutate: false, callbacks: false),
            steps: [
                Step(.submitted, [.publish(.added), .sendRequest]),
                Step(
                    .requestFailed(failureCount: 0, error: CancellationError(), taskCancelled: true),
                    [.publish(.updated), removal(at: 0), .finish(MutationCallHandOff(.failure(cancelledError)))]),
            ],
            stage: .settled(succeeded: false), kept: (nil, "\(cancelledError)", "\(cancelledError)")),
        Table(
            name: "9: a CancellationError of the request itself, with no cancel, is the call's error as it is",
            machine: machine(onMutate: false, callbacks: false),
            steps: [
                Step(.submitted, [.publish(.added), .sendRequest]),
                Step(
                    .requestFailed(failureCount: 1, error: CancellationError()),
                    [.publish(.updated), removal(at: 0), .finish(MutationCallHandOff(.failure(CancellationError())))]),
            ],
            stage: .settled(succeeded: false), kept: (nil, "\(CancellationError())", "\(CancellationError())")),
        Table(
            name: "7: an invalidation after successes only is handed with a success, not with a failure",
            machine: machine(onMutate: false, invalidation: afterSuccess),
            steps: [
                Step(.submitted, [.publish(.added), .sendRequest]),
                Step(.requestFailed(failureCount: 1, error: down), [.publish(.updated), callbacks(.failure(down))]),
            ],
            stage: .settling(succeeded: false), kept: (nil, nil, "down")),
        Table(
            name: "7: an invalidation after every outcome is handed with a failure too, with its wait",
            machine: machine(onMutate: false, invalidation: afterAny),
            steps: [
                Step(.submitted, [.publish(.added), .sendRequest]),
                Step(
                    .requestFailed(failureCount: 1, error: down),
                    [.publish(.updated), callbacks(.failure(down), invalidation: afterAny)]),
            ],
            stage: .settling(succeeded: false), kept: (nil, nil, "down")),
        Table(
            name: "7: an invalidation after successes is handed with the request's success",
            machine: machine(onMutate: false, invalidation: afterSuccess),
            steps: [
                Step(.submitted, [.publish(.added), .sendRequest]),
                Step(.requestSucceeded(response: 2), [callbacks(ok, invalidation: afterSuccess)]),
            ],
            stage: .settling(succeeded: true)),
        Table(
            name: "11: a pending call is never collected",
            machine: machine(),
            steps: [
                Step(.submitted, [.publish(.added), .runOnMutate]),
                Step(.collected, []),
                Step(.mutated(context: ()), [.sendRequest]),
                Step(.collected, []),
            ],
            stage: .running),
    ]

    @Test("each table's events give its actions, in order, and leave its outcome", arguments: tables)
    func table(_ table: Table) {
        var machine = table.machine
        for step in table.steps {
            let now = Self.epoch.advanced(byNanoseconds: Int64(step.at) * 1_000_000_000)
            let actions = machine.handle(step.event, at: now)
            #expect(actions == step.actions, "\(table.name): \(step.event)")
        }
        #expect(machine.stage == table.stage)
        #expect(machine.response.map { "\($0)" } == table.kept.response)
        #expect(machine.error.map { "\($0)" } == table.kept.error)
        #expect(machine.failureReason.map { "\($0)" } == table.kept.reason)
    }

    @Test("status and paused follow the stage")
    func statusAndPaused() {
        var machine = Self.machine(scope: true)
        #expect(machine.status == .pending && !machine.isPaused)
        _ = machine.handle(.submitted, at: Self.epoch)
        _ = machine.handle(.mutated(context: ()), at: Self.epoch)
        _ = machine.handle(.queued, at: Self.epoch)
        #expect(machine.status == .pending && machine.isPaused)
        _ = machine.handle(.turnReached, at: Self.epoch)
        _ = machine.handle(.pausedForNetwork, at: Self.epoch)
        #expect(machine.isPaused)
        _ = machine.handle(.requestSucceeded(response: 1), at: Self.epoch)
        #expect(machine.status == .pending && !machine.isPaused, "pending while its callbacks run")
        _ = machine.handle(.callbacksFinished(errors: []), at: Self.epoch)
        #expect(machine.status == .success)
    }

    @Test("1: the flags come from the plan, the client's callbacks and the call")
    func flags() {
        let plain = MutationCallPlan(MutationOptions<Int, Int>())
        let bare = Machine.flags(
            id: 3, plan: plain, scope: nil, global: MutationCallbacks(), hasExecuteOnSuccess: false,
            isRestored: false, mayJournal: false)
        #expect(bare == Machine.Flags(id: 3, keptFor: 300_000_000_000))
        let global = MutationCallbacks(onMutate: { _ in })
        let withClient = Machine.flags(
            id: 3, plan: plain, scope: "doc", global: global, hasExecuteOnSuccess: false, isRestored: true,
            mayJournal: true)
        #expect(withClient.hasOnMutate && withClient.hasSettlingCallbacks, "a client callback runs in every call")
        #expect(withClient.hasScope && withClient.isRestored && withClient.mayJournal)
        let executed = Machine.flags(
            id: 3, plan: plain, scope: nil, global: MutationCallbacks(), hasExecuteOnSuccess: true,
            isRestored: false, mayJournal: false)
        #expect(executed.hasSettlingCallbacks && !executed.hasOnMutate)
        let invalidating = MutationCallPlan(
            MutationOptions<Int, Int>(
                invalidates: { _, _ in [] }, invalidatesWhen: .settled, waitsForInvalidation: true, gcTime: .infinity))
        let flags = Machine.flags(
            id: 3, plan: invalidating, scope: nil, global: MutationCallbacks(), hasExecuteOnSuccess: false,
            isRestored: false, mayJournal: false)
        #expect(flags.hasSettlingCallbacks && flags.keptFor == nil)
        #expect(flags.invalidation == Machine.Invalidation(moment: .settled, waits: true))
    }

    @Test(
        "6: the callbacks' order: the client's before the options' of the same name, execute's onSuccess, onSettled last"
    )
    func callbackOrder() {
        #expect(
            Machine.callbackOrder(succeeded: true) == [
                .clientOnSuccess, .onSuccess, .executeOnSuccess, .clientOnSettled, .onSettled,
            ])
        #expect(Machine.callbackOrder(succeeded: false) == [.clientOnError, .onError, .clientOnSettled, .onSettled])
    }

    @Test("4: a scope's line gives turns in submission order; a call that left early is skipped at the front")
    func scopeLine() {
        var line = MutationScopeLine()
        let woken = Locked<[UInt64]>([])
        for id in [1, 2, 3, 4] as [UInt64] {
            line.append(id)
            line.wait(id) { woken.withLock { $0.append(id) } }
        }
        #expect(line.isFirst(1) && !line.isFirst(2))
        #expect(line.leave(3) == nil, "a call behind others leaves without giving a turn")
        line.leave(1)?()
        #expect(line.isFirst(2))
        line.leave(2)?()
        #expect(line.isFirst(4), "the call that left is skipped")
        #expect(line.leave(4) == nil && line.isEmpty)
        #expect(woken.withLock { $0 } == [2, 4])
    }

    /// The events a call's task and the outside may send in a stage (the task sends the answer to its step;
    /// the outside may cancel or collect at any time).
    static func possibleEvents(_ machine: Machine) -> [MutationCallEvent] {
        var events: [MutationCallEvent] = [.cancelled, .collected, .taskAttached(task)]
        let failure = MutationCallEvent.requestFailed(failureCount: 0, error: CancellationError())
        switch machine.stage {
        case .created: events = [.submitted]
        case .mutating: events += [.mutated(context: ()), failure]
        case .awaitingTurn: events += [.queued, .turnReached, failure]
        case .queued: events += [.turnReached, failure]
        case .running, .pausedOffline:
            events += [
                machine.stage == .running ? .pausedForNetwork : .resumed,
                .attemptFailed(failureCount: machine.failureCount + 1, error: down), .requestSucceeded(response: 1),
                .requestFailed(failureCount: machine.failureCount + 1, error: down),
            ]
        case .settling: events += [.callbacksFinished(errors: []), .callbacksFinished(errors: [down])]
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
        var (persisted, forgotten, cancels, added, removed, settlements, finishes) = (0, 0, 0, 0, 0, 0, 0)
        for tick in 0..<60 {
            let events = Self.possibleEvents(machine)
            let event = events[Int(random.next() % UInt64(events.count))]
            let wasPending = machine.isPending
            let actions = machine.handle(event, at: Self.epoch.advanced(byNanoseconds: Int64(tick)))
            persisted += actions.count { $0 == MutationCallAction.persist }
            forgotten += actions.count { $0 == MutationCallAction.forget }
            cancels += actions.count { if case .cancelTask = $0 { true } else { false } }
            added += actions.count { $0 == MutationCallAction.publish(.added) }
            removed += actions.count { $0 == MutationCallAction.publish(.removed) }
            settlements += actions.count { if case .armRemoval = $0 { true } else { false } }
            finishes += actions.count { if case .finish = $0 { true } else { false } }
            #expect(actions.count { $0.isStep } <= 1, "one step at a time")
            if actions.contains(where: { if case .cancelTask = $0 { true } else { false } }) {
                #expect(wasPending)
            }
            #expect(persisted <= 1 && forgotten <= 1, "saved once, cleared once")
            if !machine.isRestored { #expect(forgotten <= persisted, "only a saved call is cleared") }
            #expect(added <= 1 && removed <= 1 && settlements <= 1 && finishes <= 1)
            if machine.isPaused { #expect(machine.status == .pending) }
            if !machine.isPending { #expect(machine.task == nil, "only a pending call holds its task") }
        }
        if case .settled = machine.stage {
            #expect(!machine.isJournaled, "a settled call is no longer in the journal")
            #expect(finishes == 1, "a settled call handed its task its outcome")
        }
        if case .collected = machine.stage { #expect(!machine.isJournaled) }
    }
}
