/// The life of one mutation call, as a value (TanStack's mutation reducer; `EntryStateMachine` is the model):
/// events in with the instant and what they bring (the task, the context, the response, the error), actions
/// out with what to hand on. Every rule of a call is here, each with a row in `MutationCallStateMachineTests`.
/// `MutationCallRecord` holds it behind a lock; `MutationCache.send` performs the actions after the lock is
/// released and hands the call's task (`MutationRun`) its next step (`MutationCallAction.isStep`), which the
/// task answers with the next event.
///
/// The stages, in order (a call may skip some, never go back but between running and paused):
///
/// ```
/// submitted ─▶ mutating ─▶ (queued ⇄ waiting for its turn) ─▶ running ⇄ paused offline ─▶ settling ─▶ settled ─▶ collected
/// ```
///
/// **Rules**
/// 1. The flags a call is built with come from one function, `flags(plan:global:hasExecuteOnSuccess:…)`.
/// 2. A new call runs `onMutate` first when it has one (the client's or its options'). A call restored after a
///    restart does not (it ran before the restart), and its callbacks get a nil context; a throwing `onMutate`
///    leaves a nil context too.
/// 3. A call that may be journaled is saved once `onMutate` returned, before its request is first sent, and
///    only then: a restored call is in the journal already, and is never saved again.
/// 4. A call with a scope waits for its turn; one that is not first in its scope's line is paused meanwhile.
///    The line (`MutationScopeLine`) gives turns in submission order; a call that leaves before its turn is
///    skipped when it reaches the front.
/// 5. A call paused for the network shows paused; each failed attempt raises the failure count and becomes the
///    failure reason; a success puts the count back to 0 and clears the reason (TanStack's).
/// 6. The status stays pending while the callbacks run (`settling`): an observer that sees the call settle
///    sees what its callbacks did. The callbacks run in `callbackOrder(succeeded:)`; a throwing callback does
///    not stop the ones after it, and the first error thrown becomes the call's error (a successful request
///    then fails). A call with no callback after its request (nor invalidation) settles as its request ends.
/// 7. The options' `invalidates` runs after the callbacks, with the request's own outcome, only after the
///    outcomes its `invalidatesWhen` names; with `waitsForInvalidation` the call settles once the refetches
///    it started settled.
/// 8. The outcome kept: the response once the call settled successfully, the error once it failed (the
///    request's, or the first callback error).
/// 9. Cancelling a pending call cancels its task (at once, or as soon as the task is attached); the call then
///    fails with `MutationError.cancelled` through its callbacks. Cancelling a call that settles or settled
///    does nothing. A task cancelled from outside is a cancelled call.
/// 10. Settling clears the journal record of a call that was saved, frees its scope, publishes, hands the
///     task its outcome (`finish`, which a reconnect waiting for the call hears), and arms its removal
///     `keptFor` nanoseconds later (never, when nil).
/// 11. A pending call is never collected; collecting a settled call removes it, once.
package struct MutationCallStateMachine: Sendable {
    /// Where the call stands.
    package enum Stage: Sendable, Equatable {
        case created
        /// `onMutate` runs.
        case mutating
        /// Asks for its scope's turn.
        case awaitingTurn
        /// Waits behind earlier calls of its scope (paused).
        case queued
        /// Its request runs (through the retryer).
        case running
        /// Its request waits for the network (paused).
        case pausedOffline
        /// The callbacks run after the request's outcome (still pending).
        case settling(succeeded: Bool)
        case settled(succeeded: Bool)
        /// Removed from the mutation cache (it keeps its outcome for its mutation).
        case collected(succeeded: Bool)
    }

    /// What the mutation cache published about the call.
    package enum Change: Sendable, Equatable {
        case added, updated, removed
    }

    /// What a call is built with (rule 1).
    package struct Flags: Sendable, Equatable {
        /// The call's id in its client (`MutationError.cancelled` names it).
        package var id: UInt64 = 0
        /// Whether the call has a scope (it then waits for its turn).
        package var hasScope = false
        /// Restored after a restart: its `onMutate` ran before, and it is in the journal already.
        package var isRestored = false
        /// Whether an `onMutate` (the client's or the options') runs before the request.
        package var hasOnMutate = false
        /// Whether callbacks (or an invalidation) run after the request.
        package var hasSettlingCallbacks = false
        /// Whether it may be saved to the offline journal (a mutation key, a persistent cache, a `Codable`
        /// request).
        package var mayJournal = false
        /// How long it stays listed once settled, in nanoseconds; nil: until removed by hand.
        package var keptFor: Int64?
        /// After which outcomes the options' `invalidates` runs, and whether the call waits for its refetches;
        /// nil: the options invalidate nothing.
        package var invalidation: Invalidation?
    }

    /// When the options' `invalidates` runs (rule 7).
    package struct Invalidation: Sendable, Equatable {
        package let moment: InvalidationMoment
        package let waits: Bool
    }

    package let flags: Flags
    package private(set) var stage = Stage.created
    package private(set) var failureCount = 0
    package private(set) var isCancelled = false
    /// Whether the journal holds the call.
    package private(set) var isJournaled: Bool
    /// What `onMutate` returned, handed to the callbacks (nil: restored, or `onMutate` threw; rule 2).
    package private(set) var context: (any Sendable)?
    /// The error of the last failed attempt (rule 5).
    package private(set) var failureReason: (any Error)?
    /// The request's outcome, which the callbacks and the invalidation get (rule 7), then the call's once it
    /// settled (a callback's error replaces a success; rule 6).
    private var requestOutcome: Result<any Sendable, any Error>?
    /// The call's task, while the call is pending.
    package private(set) var task: MutationTask?

    package init(_ flags: Flags) {
        self.flags = flags
        isJournaled = flags.isRestored
        context = flags.isRestored ? nil : ()
    }

    package var isRestored: Bool { flags.isRestored }

    // MARK: - Reading

    /// The response, once the call settled successfully (rule 8).
    package var response: (any Sendable)? {
        guard status == .success, case .success(let response) = requestOutcome else { return nil }
        return response
    }

    /// The error, once the call failed (rule 8).
    package var error: (any Error)? {
        guard status == .error, case .failure(let error) = requestOutcome else { return nil }
        return error
    }

    /// Pending until it settled.
    package var status: MutationStatus {
        switch stage {
        case .settled(let succeeded), .collected(let succeeded): succeeded ? .success : .error
        default: .pending
        }
    }

    /// Pending but not running: waiting for its scope's turn, or for the network.
    package var isPaused: Bool {
        stage == .queued || stage == .pausedOffline
    }

    /// Pending, and not yet past its request: cancelling it now changes its outcome.
    package var isPending: Bool {
        switch stage {
        case .created, .mutating, .awaitingTurn, .queued, .running, .pausedOffline: true
        case .settling, .settled, .collected: false
        }
    }

    // MARK: - Events

    /// Applies `event` at `now`; returns what to do, in order.
    package mutating func handle(_ event: MutationCallEvent, at now: SchedulerInstant) -> [MutationCallAction] {
        switch (event, stage) {
        case (.submitted, .created):
            guard flags.hasOnMutate, !flags.isRestored else { return afterMutating(after: .publish(.added)) }
            stage = .mutating
            return [.publish(.added), .runOnMutate]
        case (.taskAttached(let task), _):
            // Rule 9: a task that comes after a cancel is cancelled at once; past its request, none is kept.
            guard isPending else { return [] }
            guard !isCancelled else { return [.cancelTask(task)] }
            self.task = task
            return []
        case (.mutated(let context), .mutating):
            self.context = context
            return afterMutating()
        case (.queued, .awaitingTurn):
            stage = .queued
            return [.publish(.updated)]
        case (.turnReached, .awaitingTurn):
            stage = .running
            return [.sendRequest]
        case (.turnReached, .queued):
            stage = .running
            return [.publish(.updated), .sendRequest]
        case (.pausedForNetwork, .running):
            stage = .pausedOffline
            return [.publish(.updated)]
        case (.resumed, .pausedOffline):
            stage = .running
            return [.publish(.updated)]
        case (.attemptFailed(let count, let error), .running), (.attemptFailed(let count, let error), .pausedOffline):
            failureReason = error
            guard count != failureCount else { return [] }
            failureCount = count
            return [.publish(.updated)]
        case (.requestSucceeded(let response), .running), (.requestSucceeded(let response), .pausedOffline):
            failureCount = 0
            failureReason = nil
            requestOutcome = .success(response)
            return afterRequest(succeeded: true, at: now)
        case (.requestFailed(let count, let error, let taskCancelled), _) where isPending && stage != .created:
            // The last attempt failed, `onMutate` threw, or the call was cancelled before its request ended.
            if stage == .mutating { context = nil }
            // Rule 9: a cancellation, asked here or of the task from outside, fails the call as cancelled.
            let cancelled = (isCancelled || taskCancelled) && error is CancellationError
            let error = cancelled ? MutationError.cancelled(id: flags.id) : error
            let changed = count > failureCount || isPaused
            failureCount = max(failureCount, count)
            failureReason = error
            requestOutcome = .failure(error)
            let actions = afterRequest(succeeded: false, at: now)
            return changed && flags.hasSettlingCallbacks ? [.publish(.updated)] + actions : actions
        case (.callbacksFinished(let errors), .settling(let succeeded)):
            // Rule 6: the first error a callback threw wins, and fails a successful request.
            guard let first = errors.first else { return settle(succeeded: succeeded, at: now) }
            requestOutcome = .failure(first)
            return settle(succeeded: false, at: now)
        case (.cancelled, _):
            guard isPending, !isCancelled else { return [] }
            isCancelled = true
            return task.map { [.cancelTask($0)] } ?? []
        case (.collected, .settled(let succeeded)):
            stage = .collected(succeeded: succeeded)
            return [.publish(.removed)]
        case (.collected, _):
            // Rule 11: a pending call is never collected, and a collected one only once.
            return []
        default:
            preconditionFailure("mutation call: \(event) in \(stage)")
        }
    }

    /// After the request's outcome: the callbacks (with the invalidation its outcome calls for), or, with none,
    /// the settlement.
    private mutating func afterRequest(succeeded: Bool, at now: SchedulerInstant) -> [MutationCallAction] {
        task = nil
        guard flags.hasSettlingCallbacks, let outcome = requestOutcome else {
            return settle(succeeded: succeeded, at: now)
        }
        stage = .settling(succeeded: succeeded)
        // Rule 7: the invalidation runs after the outcomes its moment names.
        let invalidation = flags.invalidation.flatMap { succeeded || $0.moment == .settled ? $0 : nil }
        return [.runCallbacks(MutationCallHandOff(outcome, context: context, invalidation: invalidation))]
    }

    /// Settles the call: keeps its outcome, clears its journal record, frees its scope, publishes, hands its
    /// task the outcome, and arms its removal (rule 10).
    private mutating func settle(succeeded: Bool, at now: SchedulerInstant) -> [MutationCallAction] {
        stage = .settled(succeeded: succeeded)
        task = nil
        let outcome = requestOutcome ?? .failure(MutationError.cancelled(id: flags.id))
        var actions: [MutationCallAction] = []
        actions.reserveCapacity(5)
        if isJournaled {
            isJournaled = false
            actions.append(.forget)
        }
        if flags.hasScope { actions.append(.leaveScope) }
        actions.append(.publish(.updated))
        if let keptFor = flags.keptFor { actions.append(.armRemoval(at: now.advanced(byNanoseconds: keptFor))) }
        actions.append(.finish(MutationCallHandOff(outcome)))
        return actions
    }

    /// After `onMutate` (at once without one, or restored): saved to the journal if it may be and is not yet,
    /// then the scope's turn, or the request.
    private mutating func afterMutating(after first: MutationCallAction? = nil) -> [MutationCallAction] {
        var actions: [MutationCallAction] = []
        actions.reserveCapacity(3)
        if let first { actions.append(first) }
        if flags.mayJournal, !isJournaled {
            isJournaled = true
            actions.append(.persist)
        }
        stage = flags.hasScope ? .awaitingTurn : .running
        actions.append(flags.hasScope ? .waitForTurn : .sendRequest)
        return actions
    }
}

// MARK: - What a call is built with, and what runs in it

extension MutationCallStateMachine {
    /// The flags of a call (rule 1), from what it runs: its plan (the mutation's options over its key's
    /// defaults), the client's callbacks, whether `execute` was given an `onSuccess`, whether it is restored,
    /// and whether the journal may hold it.
    static func flags(
        id: UInt64, plan: MutationCallPlan, scope: String?, global: MutationCallbacks, hasExecuteOnSuccess: Bool,
        isRestored: Bool, mayJournal: Bool
    ) -> Flags {
        Flags(
            id: id, hasScope: scope != nil, isRestored: isRestored,
            hasOnMutate: plan.callbacks.onMutate != nil || global.onMutate != nil,
            hasSettlingCallbacks: plan.callbacks.settles || !global.isEmpty || hasExecuteOnSuccess
                || plan.invalidates != nil,
            mayJournal: mayJournal, keptFor: plan.keptFor,
            invalidation: plan.invalidates.map { _ in
                Invalidation(moment: plan.invalidatesWhen, waits: plan.waitsForInvalidation)
            })
    }

    /// The callbacks after a call's request, in the order they run (rule 6): the client's before the options'
    /// of the same name, `execute`'s `onSuccess` after the options', `onSettled` last.
    static func callbackOrder(succeeded: Bool) -> [MutationCallback] {
        succeeded ? succeededOrder : failedOrder
    }

    private static let succeededOrder: [MutationCallback] = [
        .clientOnSuccess, .onSuccess, .executeOnSuccess, .clientOnSettled, .onSettled,
    ]
    private static let failedOrder: [MutationCallback] = [.clientOnError, .onError, .clientOnSettled, .onSettled]
}

/// One callback after a call's request (`MutationCallStateMachine.callbackOrder(succeeded:)`).
enum MutationCallback: Sendable, Equatable {
    /// The client's (`QueryClient.setMutationCallbacks(_:)`).
    case clientOnSuccess, clientOnError, clientOnSettled
    /// The mutation's options'.
    case onSuccess, onError, onSettled
    /// The `onSuccess` given to `Mutation.execute(with:onSuccess:)`.
    case executeOnSuccess
}

/// The calls of one scope, in submission order (rule 4): the first one runs, the others wait for their turn.
struct MutationScopeLine: Sendable {
    private(set) var ids = FIFO<UInt64>()
    /// Calls that left before their turn (cancelled while waiting), skipped when they reach the front.
    private var left: Set<UInt64> = []
    /// How to wake the calls waiting for their turn.
    private var waiting: [UInt64: @Sendable () -> Void] = [:]

    /// Whether no call is in the line.
    var isEmpty: Bool { ids.isEmpty }

    /// Whether `id` is the call whose turn it is.
    func isFirst(_ id: UInt64) -> Bool { ids.first == id }

    /// Puts a new call at the end of the line.
    mutating func append(_ id: UInt64) { ids.append(id) }

    /// Keeps how to wake `id` when its turn comes.
    mutating func wait(_ id: UInt64, resume: @escaping @Sendable () -> Void) { waiting[id] = resume }

    /// Takes `id` out of the line: the first call's leaving gives the turn to the next call still in the line
    /// (returned: how to wake it); a later call's leaving is noted, and it is skipped when it reaches the front.
    mutating func leave(_ id: UInt64) -> (@Sendable () -> Void)? {
        waiting[id] = nil
        guard ids.first == id else {
            left.insert(id)
            return nil
        }
        _ = ids.popFirst()
        while let first = ids.first, left.remove(first) != nil { _ = ids.popFirst() }
        guard let first = ids.first else { return nil }
        return waiting.removeValue(forKey: first)
    }
}
