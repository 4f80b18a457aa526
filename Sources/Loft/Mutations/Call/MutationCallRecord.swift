/// One call of a mutation as the client's mutation cache keeps it: what was submitted, and its state machine
/// behind a lock. The one source of the call's state: the cache's listing, `Mutation`'s state and the mutation
/// lists all read it here. A reference, so that a `Mutation` keeps showing its latest call after the cache
/// collected it (until its next call or `reset()`).
///
/// **Behavior**
/// - `handle(_:at:)` applies an event to the machine under the lock and returns its actions with the call's
///   listing as it stands after them; nothing is called out under the lock.
/// - The outcome (response, error, last failure) is kept beside the machine, set by the events that bring it.
package final class MutationCallRecord: Sendable {
    private struct State: Sendable {
        var machine: MutationCallStateMachine
        var failureReason: (any Error)?
        var response: (any Sendable)?
        var error: (any Error)?
        /// The call's task, while the call is pending.
        var task: MutationTask?
    }

    let id: UInt64
    let mutationKey: QueryKey?
    let scope: String?
    let request: any Sendable
    let meta: [String: String]
    let key: IdempotencyKey
    let submittedAt: SchedulerInstant
    /// Restored after a restart (its `onMutate` ran before it).
    let isRestored: Bool
    /// The mutation that made the call (`Mutation.cancel()` finds its calls by it).
    let owner: UInt64?
    /// Told after each published change (its mutation's state follows; nil for none).
    let onChange: (@Sendable () -> Void)?
    private let state: Locked<State>

    init(
        id: UInt64, mutationKey: QueryKey?, scope: String?, request: any Sendable, meta: [String: String],
        key: IdempotencyKey, submittedAt: SchedulerInstant, machine: MutationCallStateMachine,
        owner: UInt64?, onChange: (@Sendable () -> Void)?
    ) {
        self.id = id
        self.mutationKey = mutationKey
        self.scope = scope
        self.request = request
        self.meta = meta
        self.key = key
        self.submittedAt = submittedAt
        self.owner = owner
        self.onChange = onChange
        isRestored = machine.isRestored
        state = Locked(State(machine: machine))
    }

    /// What happened to the call, with what it brings.
    enum Outcome: Sendable {
        case none
        /// A failed attempt's error (`attemptFailed`, `requestFailed`).
        case failure(any Error)
        /// The call settled (`callbacksFinished`): the response, or the error it settled with.
        case settled(Result<any Sendable, any Error>)
    }

    /// What `handle` returns: the actions, and the call's task when an action cancels it. A struct, not a
    /// tuple: taking a lock that returns a tuple looks the tuple's type up.
    struct Handled: Sendable {
        let actions: [MutationCallAction]
        let task: MutationTask?
        /// Whether this event settled the call.
        let settled: Bool
        /// Whether what a `Mutation` shows of the call (`snapshot(as:)`: its status and failed attempts) changed.
        let shownChanged: Bool
    }

    /// Applies `event` at `now`; returns the actions.
    func handle(_ event: MutationCallEvent, at now: SchedulerInstant, _ outcome: Outcome = .none) -> Handled {
        state.withLock { state in
            let wasPending = state.machine.status == .pending
            let shown = (state.machine.status, state.machine.failureCount)
            let actions = state.machine.handle(event, at: now)
            switch outcome {
            case .none:
                break
            case .failure(let error):
                state.failureReason = error
                if state.machine.status == .error { state.error = error }
            case .settled(.success(let response)):
                if state.machine.status == .success {
                    state.response = response
                    state.failureReason = nil
                }
            case .settled(.failure(let error)):
                state.error = error
            }
            if !state.machine.isPending { state.task = nil }
            let cancels = actions.contains(.cancelTask)
            return Handled(
                actions: actions, task: cancels ? state.task : nil,
                settled: wasPending && state.machine.status != .pending,
                shownChanged: shown != (state.machine.status, state.machine.failureCount))
        }
    }

    /// Gives the call the task that runs it; returns false when the call was cancelled before (the caller then
    /// cancels the task) or already settled (its task is not kept).
    func attach(_ task: MutationTask) -> Bool {
        state.withLock { state in
            // Past its request: nothing is left to cancel, and a finished task is not kept.
            guard state.machine.isPending else { return true }
            state.task = task
            return !state.machine.isCancelled
        }
    }

    /// Whether it holds its task (only a pending call does).
    var holdsTask: Bool {
        state.withLock { $0.task != nil }
    }

    /// The machine as it stands (for tests and the cache's filters).
    var machine: MutationCallStateMachine {
        state.withLock { $0.machine }
    }

    /// The call as listed now.
    var info: MutationInfo {
        state.withLock { Self.info(self, $0) }
    }

    /// Where the call stands now, for its mutation's state (`MutationCallStanding.snapshot(as:)`).
    var standing: MutationCallStanding {
        state.withLock { state in
            MutationCallStanding(
                id: id, status: state.machine.status, response: state.response, error: state.error,
                failureCount: state.machine.failureCount)
        }
    }

    private static func info(_ record: MutationCallRecord, _ state: State) -> MutationInfo {
        let status = state.machine.status
        return MutationInfo(
            id: record.id, mutationKey: record.mutationKey, scope: record.scope, request: record.request,
            status: status, isPaused: state.machine.isPaused, failureCount: state.machine.failureCount,
            failureReason: state.failureReason, submittedAt: record.submittedAt,
            response: status == .success ? state.response : nil, error: status == .error ? state.error : nil,
            meta: record.meta, key: record.key)
    }
}

/// The task of a mutation call: its value is the call's outcome.
typealias MutationTask = TrackedTask<Result<any Sendable, any Error>>
