/// What happens to a mutation call (`MutationCallStateMachine.handle(_:at:)`), with what it brings.
package enum MutationCallEvent: Sendable {
    /// Listed in the mutation cache.
    case submitted
    /// The task that runs the call exists.
    case taskAttached(MutationTask)
    /// `onMutate` returned (or there is none), with what it returned (the context).
    case mutated(context: (any Sendable)?)
    /// Earlier calls of its scope are pending: it waits.
    case queued
    /// Its scope's turn came.
    case turnReached
    case pausedForNetwork
    case resumed
    /// An attempt failed and another will follow: the failures so far, and this attempt's error.
    case attemptFailed(failureCount: Int, error: any Error)
    /// The request succeeded, with the server's response.
    case requestSucceeded(response: any Sendable)
    /// The last attempt failed, `onMutate` threw, or the call was cancelled: the failures so far, the error, and
    /// whether the call's task was cancelled (from outside the machine too).
    case requestFailed(failureCount: Int, error: any Error, taskCancelled: Bool = false)
    /// Every callback after the request ran (and the invalidation), with the errors they threw, in order.
    case callbacksFinished(errors: [any Error])
    /// Asked to cancel.
    case cancelled
    /// Its `gcTime` ran out, or the cache is cleared.
    case collected
}

extension MutationCallEvent: CustomStringConvertible {
    package var description: String {
        switch self {
        case .submitted: "submitted"
        case .taskAttached: "taskAttached"
        case .mutated(let context): "mutated(\(context.map { "\($0)" } ?? "nil"))"
        case .queued: "queued"
        case .turnReached: "turnReached"
        case .pausedForNetwork: "pausedForNetwork"
        case .resumed: "resumed"
        case .attemptFailed(let count, let error): "attemptFailed(\(count), \(error))"
        case .requestSucceeded(let response): "requestSucceeded(\(response))"
        case .requestFailed(let count, let error, _): "requestFailed(\(count), \(error))"
        case .callbacksFinished(let errors): "callbacksFinished(\(errors))"
        case .cancelled: "cancelled"
        case .collected: "collected"
        }
    }
}
