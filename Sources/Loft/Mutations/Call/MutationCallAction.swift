/// What a mutation call's machine asks for, with what to hand on. The steps (`isStep`) are the call task's to
/// perform (`MutationRun`), each answered with the next event; the others are performed by the mutation cache
/// (`MutationCache.send`) after the record's lock is released.
package enum MutationCallAction: Sendable {
    /// Step: runs the client's and the options' `onMutate`.
    case runOnMutate
    /// Step: waits for the scope's turn.
    case waitForTurn
    /// Step: sends the request through the retryer.
    case sendRequest
    /// Step: runs the callbacks after the request's outcome in their order, with the call's context, then the
    /// options' invalidation when the outcome calls for it (all three in the hand-off).
    case runCallbacks(MutationCallHandOff)
    /// Step: the call settled with the hand-off's outcome; its task returns it.
    case finish(MutationCallHandOff)
    /// Saves the call to the offline journal.
    case persist
    /// Clears the call's journal record.
    case forget
    /// Takes the call out of its scope's line, waking the next one.
    case leaveScope
    /// Publishes the call's change: the client's events, its mutation's state, the mutation lists (`removed`
    /// also takes it off the cache's table).
    case publish(MutationCallStateMachine.Change)
    /// Removes the settled call from the mutation cache at this instant.
    case armRemoval(at: SchedulerInstant)
    /// Cancels the call's task.
    case cancelTask(MutationTask)

    /// Whether the call's task performs it.
    package var isStep: Bool {
        switch self {
        case .runOnMutate, .waitForTurn, .sendRequest, .runCallbacks, .finish: true
        default: false
        }
    }
}

/// Actions are compared in the machine's tables: payloads by their descriptions (errors and responses are
/// existentials), tasks by identity.
extension MutationCallAction: Equatable, CustomStringConvertible {
    package static func == (lhs: MutationCallAction, rhs: MutationCallAction) -> Bool {
        switch (lhs, rhs) {
        case (.cancelTask(let left), .cancelTask(let right)): left == right
        default: lhs.description == rhs.description
        }
    }

    package var description: String {
        switch self {
        case .runOnMutate: "runOnMutate"
        case .waitForTurn: "waitForTurn"
        case .sendRequest: "sendRequest"
        case .runCallbacks(let handOff):
            "runCallbacks(\(Self.describe(handOff.outcome)), context: \(handOff.context.map { "\($0)" } ?? "nil"), "
                + "invalidation: \(handOff.invalidation.map { "\($0.moment), waits: \($0.waits)" } ?? "nil"))"
        case .finish(let handOff): "finish(\(Self.describe(handOff.outcome)))"
        case .persist: "persist"
        case .forget: "forget"
        case .leaveScope: "leaveScope"
        case .publish(let change): "publish(\(change))"
        case .armRemoval(let instant): "armRemoval(\(instant))"
        case .cancelTask: "cancelTask"
        }
    }

    private static func describe(_ outcome: Result<any Sendable, any Error>) -> String {
        switch outcome {
        case .success(let value): "success(\(value))"
        case .failure(let error): "failure(\(error))"
        }
    }
}

/// What a step action hands the call's task: the outcome, the context, the invalidation. A class, so that an
/// action is one word: actions with existential payloads were copied and destroyed through their value
/// witnesses at every step of every call (docs/Performance.md, row (o)).
package final class MutationCallHandOff: Sendable {
    /// The request's outcome (for `runCallbacks`), or the call's (for `finish`).
    package let outcome: Result<any Sendable, any Error>
    /// What `onMutate` returned (nil: restored, or `onMutate` threw).
    package let context: (any Sendable)?
    /// The options' invalidation, when the outcome calls for it.
    package let invalidation: MutationCallStateMachine.Invalidation?

    package init(
        _ outcome: Result<any Sendable, any Error>, context: (any Sendable)? = nil,
        invalidation: MutationCallStateMachine.Invalidation? = nil
    ) {
        self.outcome = outcome
        self.context = context
        self.invalidation = invalidation
    }
}
