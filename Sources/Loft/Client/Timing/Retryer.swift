import Synchronization

/// Runs one fetch or mutation: its attempts, the back-off between them on the client's timer queue, and the
/// pauses while the network (or, for queries, the focus) is away — TanStack's retryer, shared by queries and
/// mutations. It performs what its `RetryStateMachine` decides and decides nothing itself.
///
/// **Behavior**
/// - `RetryPolicy` decides from the failure count and the error whether, and after how long, to try again.
/// - A first attempt that `NetworkMode` does not let start offline waits, paused, until the client is online.
/// - A retry due while it cannot continue (offline unless `.always`; unfocused when `pausesWhenUnfocused`)
///   waits, paused, until it can.
/// - `cancelRetry()` lets the attempt in flight finish but makes no further attempt: the run fails with the
///   last error when its back-off ends. `continueRetry()` undoes it before then.
/// - Cancelling the task that runs it stops it at once (`.cancelled`).
/// - Waiting (back-off or pause) does not count as busy work, so `QueryClient.waitUntilIdle()` returns.
package final class Retryer: Sendable {
    /// How a run ended.
    package enum Outcome<Value: Sendable>: Sendable {
        case success(Value)
        case failure(any Error, failureCount: Int)
        case cancelled
    }

    /// What a run reports while it goes, to the one closure its caller gives (one closure rather than one per
    /// kind of progress: a run that never retries nor pauses then allocates none of them).
    package enum Progress: Sendable {
        /// An attempt failed and another will follow (the failure count so far, the error).
        case retrying(failureCount: Int, error: any Error)
        /// The run waits for the network or the focus.
        case paused
        /// The run goes on after a pause.
        case continued
    }

    private let policy: RetryPolicy
    private let networkMode: NetworkMode
    private let pausesWhenUnfocused: Bool
    private let context: ClientContext
    private let isRetryCancelled = Atomic<Bool>(false)

    package init(policy: RetryPolicy, networkMode: NetworkMode, pausesWhenUnfocused: Bool, context: ClientContext) {
        self.policy = policy
        self.networkMode = networkMode
        self.pausesWhenUnfocused = pausesWhenUnfocused
        self.context = context
    }

    /// Makes no further attempt after the one in flight (the last observer left).
    package func cancelRetry() {
        isRetryCancelled.store(true, ordering: .releasing)
    }

    /// Undoes `cancelRetry()` (an observer came back before the next attempt).
    package func continueRetry() {
        isRetryCancelled.store(false, ordering: .releasing)
    }

    /// Runs `attempt` until it succeeds, the policy gives up, or the task is cancelled.
    package func run<Value: Sendable>(
        reporting report: @Sendable (Progress) -> Void, _ attempt: @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        await Self.run(
            policy: policy, networkMode: networkMode, pausesWhenUnfocused: pausesWhenUnfocused,
            waitsForMutations: true, context: context, isRetryCancelled: { self.isCancelled }, reporting: report,
            attempt)
    }

    /// Runs `attempt` as `run(reporting:_:)` does, for a run that nothing cancels but its task: no retryer
    /// object is made (a mutation's call, which has no observers to leave).
    @inline(__always)
    package static func run<Value: Sendable>(
        policy: RetryPolicy, networkMode: NetworkMode, context: ClientContext,
        reporting report: @Sendable (Progress) -> Void, _ attempt: @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        await run(
            policy: policy, networkMode: networkMode, pausesWhenUnfocused: false, waitsForMutations: false,
            context: context, isRetryCancelled: { false }, reporting: report, attempt)
    }

    /// The first attempt, when the machine lets it start at once; everything else is in `performing`, whose
    /// (larger) frame a run that starts at once and succeeds never allocates: in a task of its own, as a
    /// mutation's call runs, that frame alone outgrew the task's first block of memory.
    private static func run<Value: Sendable>(
        policy: RetryPolicy, networkMode: NetworkMode, pausesWhenUnfocused: Bool, waitsForMutations: Bool,
        context: ClientContext,
        isRetryCancelled isCancelled: () -> Bool, reporting report: @Sendable (Progress) -> Void,
        _ attempt: @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        var machine = RetryStateMachine(
            RetryStateMachine.Rules(
                policy: policy, networkMode: networkMode, pausesWhenUnfocused: pausesWhenUnfocused,
                waitsForMutations: waitsForMutations))
        var next = machine.handle(.started(context.environment.conditions))
        var failed: (any Error)?
        if next == .attempt {
            do {
                return .success(try await attempt())
            } catch {
                failed = error
                next = machine.handle(
                    .attemptFailed(error, isTaskCancelled: Task.isCancelled, isRetryCancelled: isCancelled()))
            }
        }
        return await performing(
            next, of: machine, after: failed, context: context, isRetryCancelled: isCancelled, reporting: report,
            attempt)
    }

    /// Performs the machine's actions from `next` on, feeding back what came of each, until the run ended;
    /// `failed` is the last attempt's error.
    @inline(never)
    private static func performing<Value: Sendable>(
        _ next: RetryStateMachine.Action, of machine: RetryStateMachine, after failed: (any Error)?,
        context: ClientContext, isRetryCancelled isCancelled: () -> Bool,
        reporting report: @Sendable (Progress) -> Void, _ attempt: @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        var machine = machine
        var next = next
        var failed = failed
        while true {
            switch next {
            case .attempt:
                do {
                    return .success(try await attempt())
                } catch {
                    failed = error
                    next = machine.handle(
                        .attemptFailed(error, isTaskCancelled: Task.isCancelled, isRetryCancelled: isCancelled()))
                }
            case .backOff(let delay, let failureCount):
                if let failed { report(.retrying(failureCount: failureCount, error: failed)) }
                do {
                    try await backOff(delay, context: context)
                    next = machine.handle(
                        .backOffEnded(context.environment.conditions, isRetryCancelled: isCancelled()))
                } catch {
                    next = machine.handle(.taskCancelled)
                }
            case .pause(let pause):
                let rules = machine
                do {
                    try await wait(report, context: context) { rules.isOver(pause, under: $0) }
                    next = machine.handle(.pauseEnded(isRetryCancelled: isCancelled()))
                } catch {
                    next = machine.handle(.taskCancelled)
                }
            case .fail(let failureCount):
                return .failure(failed ?? CancellationError(), failureCount: failureCount)
            case .cancel:
                return .cancelled
            }
        }
    }

    private var isCancelled: Bool {
        isRetryCancelled.load(ordering: .acquiring)
    }

    private static func backOff(_ delay: Duration, context: ClientContext) async throws {
        let timers = context.timers
        // A key of its own per back-off (most runs never back off, and make none).
        let timer = timers.makeKey()
        let deadline = context.now + delay
        try await context.tracker.suspend { resume in
            timers.set(timer, at: deadline, resume)
            return { timers.cancel(timer) }
        }
    }

    /// Returns at once when `condition` holds; else pauses (reported) until it does.
    private static func wait(
        _ report: @Sendable (Progress) -> Void, context: ClientContext,
        until condition: @escaping @Sendable (ClientEnvironment.Conditions) -> Bool
    ) async throws {
        guard !condition(context.environment.conditions) else { return }
        report(.paused)
        let environment = context.environment
        try await context.tracker.suspend { resume in environment.wait(until: condition, resume) }
        report(.continued)
    }
}
