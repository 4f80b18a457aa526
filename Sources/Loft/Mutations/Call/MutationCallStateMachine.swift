/// The life of one mutation call, as a pure value (TanStack's mutation reducer; `EntryStateMachine` is the
/// model): events in with the instant, actions out. Every rule of a call is here: when it runs its callbacks,
/// when it is saved to and cleared from the offline journal, when it is paused, when its scope moves on, when
/// it settles and when it is collected. `MutationCallRecord` holds it behind a lock and performs the actions
/// after the lock is released; the call's task (`MutationRun`) performs the steps it is given
/// (`MutationCallAction.isStep`) and answers with the next event.
///
/// The stages, in order (a call may skip some, never go back but between running and paused):
///
/// ```
/// submitted ─▶ mutating ─▶ (queued ⇄ waiting for its turn) ─▶ running ⇄ paused offline ─▶ settling ─▶ settled ─▶ collected
/// ```
///
/// **Rules**
/// - A new call runs `onMutate` first when it has one (the client's or its options'); a call restored after a
///   restart does not (it ran before the restart), and its callbacks get no context.
/// - A call that may be journaled is saved once `onMutate` returned, before its request is first sent, and
///   only then: a restored call is in the journal already, and is never saved again.
/// - A call with a scope waits for its turn; one that is not first in its scope's line is paused meanwhile.
/// - A call paused for the network shows paused; each failed attempt raises the failure count; a success
///   puts it back to 0 (TanStack's).
/// - The status stays pending while the callbacks run (`settling`): an observer that sees the call settle
///   sees what its callbacks did. A throwing callback makes a successful call fail. A call with no callback
///   after its request (nor invalidation) settles as its request ends.
/// - Settling clears the journal record of a call that was saved, frees its scope, publishes, and arms its
///   removal `keptFor` nanoseconds later (never, when nil).
/// - Cancelling a pending call cancels its task, which then fails the call through the same path; cancelling
///   a call that settles or settled does nothing.
/// - A pending call is never collected; collecting a settled call removes it, once.
package struct MutationCallStateMachine: Sendable, Equatable {
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

    /// Whether the call has a scope (it then waits for its turn).
    package let hasScope: Bool
    /// Restored after a restart: its `onMutate` ran before, and it is in the journal already.
    package let isRestored: Bool
    /// Whether an `onMutate` (the client's or the options') runs before the request.
    package let hasOnMutate: Bool
    /// Whether callbacks (or an invalidation) run after the request.
    package let hasSettlingCallbacks: Bool
    /// Whether it may be saved to the offline journal (a mutation key, a persistent cache, a `Codable`
    /// request).
    package let mayJournal: Bool
    /// How long it stays listed once settled, in nanoseconds; nil: until removed by hand.
    package let keptFor: Int64?

    package private(set) var stage = Stage.created
    package private(set) var failureCount = 0
    package private(set) var isCancelled = false
    /// Whether the journal holds the call.
    package private(set) var isJournaled: Bool

    package init(
        hasScope: Bool, isRestored: Bool, hasOnMutate: Bool, hasSettlingCallbacks: Bool, mayJournal: Bool,
        keptFor: Int64?
    ) {
        self.hasScope = hasScope
        self.isRestored = isRestored
        self.hasOnMutate = hasOnMutate
        self.hasSettlingCallbacks = hasSettlingCallbacks
        self.mayJournal = mayJournal
        self.keptFor = keptFor
        isJournaled = isRestored
    }

    // MARK: - Reading

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
            guard hasOnMutate, !isRestored else { return afterMutating(after: .publish(.added)) }
            stage = .mutating
            return [.publish(.added), .runOnMutate]
        case (.mutated, .mutating):
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
        case (.attemptFailed(let count), .running), (.attemptFailed(let count), .pausedOffline):
            guard count != failureCount else { return [] }
            failureCount = count
            return [.publish(.updated)]
        case (.requestSucceeded, .running), (.requestSucceeded, .pausedOffline):
            failureCount = 0
            guard hasSettlingCallbacks else { return settle(succeeded: true, at: now) }
            stage = .settling(succeeded: true)
            return [.runCallbacks(succeeded: true)]
        case (.requestFailed(let count), _) where isPending && stage != .created:
            // The last attempt failed, `onMutate` threw, or the call was cancelled before its request ended.
            let changed = count > failureCount
            failureCount = max(failureCount, count)
            guard hasSettlingCallbacks else { return settle(succeeded: false, at: now) }
            let wasPaused = isPaused
            stage = .settling(succeeded: false)
            return changed || wasPaused
                ? [.publish(.updated), .runCallbacks(succeeded: false)] : [.runCallbacks(succeeded: false)]
        case (.callbacksFinished(let callbackFailed), .settling(let succeeded)):
            return settle(succeeded: succeeded && !callbackFailed, at: now)
        case (.cancelled, _):
            guard isPending, !isCancelled else { return [] }
            isCancelled = true
            return [.cancelTask]
        case (.collected, .settled(let succeeded)):
            stage = .collected(succeeded: succeeded)
            return [.publish(.removed)]
        case (.collected, _):
            // A pending call is never collected, and a collected one only once.
            return []
        default:
            preconditionFailure("mutation call: \(event) in \(stage)")
        }
    }

    /// Settles the call: clears its journal record, frees its scope, publishes, and arms its removal.
    private mutating func settle(succeeded: Bool, at now: SchedulerInstant) -> [MutationCallAction] {
        stage = .settled(succeeded: succeeded)
        var actions: [MutationCallAction] = []
        actions.reserveCapacity(4)
        if isJournaled {
            isJournaled = false
            actions.append(.forget)
        }
        if hasScope { actions.append(.leaveScope) }
        actions.append(.publish(.updated))
        if let keptFor { actions.append(.armRemoval(at: now.advanced(byNanoseconds: keptFor))) }
        return actions
    }

    /// After `onMutate` (at once without one, or restored): saved to the journal if it may be and is not yet,
    /// then the scope's turn, or the request.
    private mutating func afterMutating(after first: MutationCallAction? = nil) -> [MutationCallAction] {
        var actions: [MutationCallAction] = []
        actions.reserveCapacity(3)
        if let first { actions.append(first) }
        if mayJournal, !isJournaled {
            isJournaled = true
            actions.append(.persist)
        }
        stage = hasScope ? .awaitingTurn : .running
        actions.append(hasScope ? .waitForTurn : .sendRequest)
        return actions
    }
}

/// What happens to a mutation call (`MutationCallStateMachine.handle(_:at:)`).
package enum MutationCallEvent: Sendable, Equatable {
    /// Listed in the mutation cache.
    case submitted
    /// `onMutate` returned (or there is none).
    case mutated
    /// Earlier calls of its scope are pending: it waits.
    case queued
    /// Its scope's turn came.
    case turnReached
    case pausedForNetwork
    case resumed
    /// An attempt failed and another will follow.
    case attemptFailed(failureCount: Int)
    case requestSucceeded
    /// The last attempt failed, `onMutate` threw, or the call was cancelled (with the failures so far).
    case requestFailed(failureCount: Int)
    /// Every callback after the request ran; whether one threw.
    case callbacksFinished(callbackFailed: Bool)
    /// Asked to cancel.
    case cancelled
    /// Its `gcTime` ran out, or the cache is cleared.
    case collected
}

/// What the machine asks for. The steps (`isStep`) are the call task's to perform, each answered with the next
/// event; the others are the storage's, performed after its lock is released.
package enum MutationCallAction: Sendable, Equatable {
    /// Step: runs the client's and the options' `onMutate`.
    case runOnMutate
    /// Step: waits for the scope's turn.
    case waitForTurn
    /// Step: sends the request through the retryer.
    case sendRequest
    /// Step: runs the callbacks after the request, then the declarative invalidation.
    case runCallbacks(succeeded: Bool)
    /// Saves the call to the offline journal.
    case persist
    /// Clears the call's journal record.
    case forget
    /// Takes the call out of its scope's line, waking the next one.
    case leaveScope
    /// Publishes the call's change: the client's events, its mutation's state, the mutation lists.
    case publish(MutationCallStateMachine.Change)
    /// Removes the settled call from the mutation cache at this instant.
    case armRemoval(at: SchedulerInstant)
    case cancelTask

    /// Whether the call's task performs it.
    package var isStep: Bool {
        switch self {
        case .runOnMutate, .waitForTurn, .sendRequest, .runCallbacks: true
        default: false
        }
    }
}
