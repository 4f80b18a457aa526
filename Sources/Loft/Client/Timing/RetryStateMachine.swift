/// The decisions of one run of attempts, a fetch's or a mutation call's, as a pure value (TanStack's retryer):
/// events in, one action out. `Retryer` performs the actions (an attempt, a back-off on the timer queue, a
/// pause until the conditions let the run go on) and feeds back what came of each; it decides nothing.
///
/// Every rule of a run is stated here, once:
/// - whether a first attempt may start, or waits paused for the network (the rule is `NetworkMode`'s
///   `allowsFirstAttempt`, which the entry's state machine asks too when it shows a fetch as paused);
/// - after a failure, whether another attempt follows and after how long (`RetryPolicy`, from the failure
///   count and the error), or the run fails;
/// - after a back-off, whether the retry runs, waits paused (offline unless `.always`; unfocused for a query),
///   or the run fails because its retries were cancelled (the last observer left);
/// - that a cancelled task ends the run as cancelled, and that an ended run takes no event.
///
/// A successful attempt needs no decision: the retryer returns its value, and the run is over.
///
/// Its actions are `Equatable`: `RetryStateMachineTests` feeds it events and compares the actions out, and
/// walks it through seeded random events against its invariants.
package struct RetryStateMachine: Sendable {
    /// What the run waits for, paused.
    package enum Pause: Sendable, Equatable {
        /// The network to let a first attempt start.
        case untilItMayStart
        /// The network (and, for a query, the focus) to let a retry run.
        case untilItMayContinue
    }

    /// What the retryer does next.
    package enum Action: Sendable, Equatable {
        /// Runs the attempt.
        case attempt
        /// Reports the failure (the count so far) and waits `delay` on the client's timer queue.
        case backOff(Duration, failureCount: Int)
        /// Reports the pause and waits until the conditions let the run go on.
        case pause(Pause)
        /// The run failed with the last attempt's error, after `failureCount` failures.
        case fail(failureCount: Int)
        /// The task running it was cancelled.
        case cancel
    }

    /// What came of the last action, with what the retryer reads now.
    package enum Event: Sendable {
        /// The run begins, under `conditions`.
        case started(ClientEnvironment.Conditions)
        /// The attempt failed with `error`; `isTaskCancelled` reads the running task, `isRetryCancelled` whether
        /// the last observer left (no further attempt).
        case attemptFailed(any Error, isTaskCancelled: Bool, isRetryCancelled: Bool)
        /// The back-off ended under `conditions`.
        case backOffEnded(ClientEnvironment.Conditions, isRetryCancelled: Bool)
        /// The conditions the pause waited for hold.
        case pauseEnded(isRetryCancelled: Bool)
        /// The task was cancelled while the run waited (a back-off or a pause).
        case taskCancelled
    }

    /// The rules a run follows.
    package struct Rules: Sendable {
        let policy: RetryPolicy
        let networkMode: NetworkMode
        /// A query's retries also wait for the focus.
        let pausesWhenUnfocused: Bool
        /// A query's paused run goes on only once the calls resumed on reconnect settled; a mutation's at once.
        let waitsForMutations: Bool

        package init(policy: RetryPolicy, networkMode: NetworkMode, pausesWhenUnfocused: Bool, waitsForMutations: Bool)
        {
            self.policy = policy
            self.networkMode = networkMode
            self.pausesWhenUnfocused = pausesWhenUnfocused
            self.waitsForMutations = waitsForMutations
        }
    }

    let rules: Rules
    /// Failed attempts so far.
    package private(set) var failureCount = 0
    /// The run ended (it failed or was cancelled): it takes no event any more.
    package private(set) var hasEnded = false
    /// The pause the run waits in, if any.
    package private(set) var pause: Pause?

    package init(_ rules: Rules) {
        self.rules = rules
    }

    // MARK: - Rules

    /// Whether a paused first attempt may start under `conditions` (`NetworkMode.allowsFirstAttempt`; a
    /// mutation's paused calls first, for a run that waits for them).
    package func mayStart(_ conditions: ClientEnvironment.Conditions) -> Bool {
        rules.networkMode.allowsFirstAttempt(isOnline: isOnline(conditions))
    }

    /// Whether a retry may run under `conditions`: the network as `NetworkMode.allowsRetry` says, and focused
    /// for a query.
    package func mayContinue(_ conditions: ClientEnvironment.Conditions) -> Bool {
        rules.networkMode.allowsRetry(isOnline: isOnline(conditions))
            && (conditions.isFocused || !rules.pausesWhenUnfocused)
    }

    /// Whether `pause` is over under `conditions`.
    package func isOver(_ pause: Pause, under conditions: ClientEnvironment.Conditions) -> Bool {
        switch pause {
        case .untilItMayStart: mayStart(conditions)
        case .untilItMayContinue: mayContinue(conditions)
        }
    }

    private func isOnline(_ conditions: ClientEnvironment.Conditions) -> Bool {
        rules.waitsForMutations ? conditions.queriesMayContinue : conditions.isOnline
    }

    // MARK: - Events

    /// Takes `event` and returns what to do next.
    package mutating func handle(_ event: Event) -> Action {
        precondition(!hasEnded, "retry run: \(event) after the run ended")
        switch event {
        case .started(let conditions):
            // The first attempt asks the network alone, as the entry did when it showed the fetch starting
            // (`NetworkMode.allowsFirstAttempt`); a pause's end asks `mayStart`, which also waits for the
            // paused mutations a run is told to wait for.
            guard rules.networkMode.allowsFirstAttempt(isOnline: conditions.isOnline) else {
                return paused(.untilItMayStart)
            }
            return .attempt
        case .attemptFailed(let error, let isTaskCancelled, let isRetryCancelled):
            if isTaskCancelled { return end(.cancel) }
            failureCount += 1
            guard !isRetryCancelled, let delay = rules.policy.delayBeforeRetry(failureCount, error) else {
                return end(.fail(failureCount: failureCount))
            }
            return .backOff(delay, failureCount: failureCount)
        case .backOffEnded(let conditions, let isRetryCancelled):
            if isRetryCancelled { return end(.fail(failureCount: failureCount)) }
            return mayContinue(conditions) ? .attempt : paused(.untilItMayContinue)
        case .pauseEnded(let isRetryCancelled):
            let ended = pause
            pause = nil
            // A retry cancelled during its pause fails the run; a first attempt that waited always runs.
            if ended == .untilItMayContinue, isRetryCancelled { return end(.fail(failureCount: failureCount)) }
            return .attempt
        case .taskCancelled:
            return end(.cancel)
        }
    }

    private mutating func paused(_ pause: Pause) -> Action {
        self.pause = pause
        return .pause(pause)
    }

    private mutating func end(_ action: Action) -> Action {
        hasEnded = true
        return action
    }
}
