/// One call of a mutation as the client's mutation cache keeps it: what was submitted, and its state machine
/// behind a lock. The one source of the call's state: the cache's listing, `Mutation`'s state and the mutation
/// lists all read it here. A reference, so that a `Mutation` keeps showing its latest call after the cache
/// collected it (until its next call or `reset()`).
///
/// **Behavior**
/// - `handle(_:at:)` applies an event to the machine under the lock and returns its actions; nothing is called
///   out under the lock, and every rule is the machine's (the outcome it keeps, the task it holds).
package final class MutationCallRecord: Sendable {
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
    /// Told after each published change of what its mutation shows (its mutation's state follows; nil for
    /// none).
    let onChange: (@Sendable () -> Void)?
    private let state: Locked<MutationCallStateMachine>

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
        state = Locked(machine)
    }

    /// What `handle` returns: the actions, and whether what a `Mutation` shows of the call changed. A struct,
    /// not a tuple: taking a lock that returns a tuple looks the tuple's type up.
    struct Handled: Sendable {
        let actions: [MutationCallAction]
        /// Whether what a `Mutation` shows of the call (`MutationCallStanding`: its status and failed attempts)
        /// changed.
        let shownChanged: Bool
    }

    /// Applies `event` at `now`; returns the actions.
    func handle(_ event: MutationCallEvent, at now: SchedulerInstant) -> Handled {
        state.withLock { machine in
            let shown = (machine.status, machine.failureCount)
            let actions = machine.handle(event, at: now)
            return Handled(actions: actions, shownChanged: shown != (machine.status, machine.failureCount))
        }
    }

    /// Whether it holds its task (only a pending call does).
    var holdsTask: Bool {
        state.withLock { $0.task != nil }
    }

    /// The machine as it stands (for tests and the cache's filters).
    var machine: MutationCallStateMachine {
        state.withLock { $0 }
    }

    /// The call as listed now.
    var info: MutationInfo {
        state.withLock { Self.info(self, $0) }
    }

    /// Where the call stands now, for its mutation's state (`MutationCallStanding.snapshot(as:)`).
    var standing: MutationCallStanding {
        state.withLock { machine in
            MutationCallStanding(
                id: id, status: machine.status, response: machine.response, error: machine.error,
                failureCount: machine.failureCount)
        }
    }

    private static func info(_ record: MutationCallRecord, _ machine: MutationCallStateMachine) -> MutationInfo {
        MutationInfo(
            id: record.id, mutationKey: record.mutationKey, scope: record.scope, request: record.request,
            status: machine.status, isPaused: machine.isPaused, failureCount: machine.failureCount,
            failureReason: machine.failureReason, submittedAt: record.submittedAt, response: machine.response,
            error: machine.error, meta: record.meta, key: record.key)
    }
}

/// The task of a mutation call: its value is the call's outcome.
package typealias MutationTask = TrackedTask<Result<any Sendable, any Error>>
