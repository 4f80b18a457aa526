/// The work of one mutation call's task: it performs the steps its state machine gives it
/// (`MutationCallAction.isStep`: `onMutate`, the wait for the scope's turn, the request through the retryer,
/// the callbacks) and answers each with the next event, until the call settled. It decides nothing: the order
/// and every rule are the machine's.
///
/// **Behavior**
/// - The client's callbacks run before the options' of the same name; a throwing callback does not stop the
///   ones after it, and the call settles with the first callback error.
/// - The options' `invalidates` runs after the callbacks, with the request's own outcome; with
///   `waitsForInvalidation` the call settles once the refetches it started settled.
/// - Cancelling the task (the call's `cancelTask` action) fails the call with `MutationError.cancelled`,
///   through its callbacks.
///
/// Not generic: the request and response travel erased, as the callbacks take them (`MutationCallSteps`), so
/// that every call runs one compiled body instead of generic code that looks its types up at each step.
struct MutationRun: TrackedWork {
    let record: MutationCallRecord
    /// The first step, as the submission returned it.
    let first: MutationCallAction?
    /// The mutation's options (over its key's defaults).
    let plan: MutationCallPlan
    let request: any Sendable
    /// Sends the request once (an attempt), bound to the call.
    let send: @Sendable () async throws -> any Sendable
    let client: QueryClient
    /// The client's callbacks, as the call was submitted.
    let global: MutationCallbacks
    /// The `onSuccess` given to `execute(with:onSuccess:)`, if any.
    let onSuccess: (@Sendable (any Sendable, QueryInvalidator) -> Void)?

    func run() async -> Result<any Sendable, any Error> {
        let cache = client.mutationCache
        // A restored call's `onMutate` ran before the restart: its callbacks get no context.
        var context: (any Sendable)? = record.isRestored ? nil : ()
        // Every path to the callbacks sets it first.
        var outcome: Result<any Sendable, any Error> = .success(())
        var step = first
        while let current = step {
            switch current {
            case .runOnMutate:
                do {
                    if let onMutate = global.onMutate { try await onMutate(record.info) }
                    if let onMutate = plan.callbacks.onMutate { context = try await onMutate(request) }
                    step = cache.send(.mutated, to: record)
                } catch {
                    context = nil
                    outcome = .failure(cancelled(error))
                    step = cache.send(.requestFailed(failureCount: 0), to: record, .failure(cancelled(error)))
                }
            case .waitForTurn:
                do {
                    try await cache.awaitTurn(record)
                    step = cache.send(.turnReached, to: record)
                } catch {
                    outcome = .failure(cancelled(error))
                    step = cache.send(.requestFailed(failureCount: 0), to: record, .failure(cancelled(error)))
                }
            case .sendRequest:
                (outcome, step) = await sendRequest(cache)
            case .runCallbacks:
                let callbackError = await runCallbacks(after: outcome, context: context, global: global)
                await invalidate(after: outcome)
                if let callbackError { outcome = .failure(callbackError) }
                step = cache.send(
                    .callbacksFinished(callbackFailed: callbackError != nil), to: record, .settled(outcome))
            case .persist, .forget, .leaveScope, .publish, .armRemoval, .cancelTask:
                preconditionFailure("mutation call \(record.id): \(current) is not a step")
            }
        }
        return outcome
    }

    /// The request through the client's retryer, each attempt's failure and each pause told to the machine.
    private func sendRequest(
        _ cache: MutationCache
    ) async -> (Result<any Sendable, any Error>, MutationCallAction?) {
        let record = record
        let result = await Retryer.run(
            policy: plan.retry, networkMode: plan.networkMode, context: client.context,
            reporting: { progress in
                switch progress {
                case .retrying(let failureCount, let error):
                    cache.send(.attemptFailed(failureCount: failureCount), to: record, .failure(error))
                case .paused:
                    cache.send(.pausedForNetwork, to: record)
                case .continued:
                    cache.send(.resumed, to: record)
                }
            }, send)
        switch result {
        case .success(let response):
            return (.success(response), cache.send(.requestSucceeded, to: record, .settled(.success(response))))
        case .failure(let error, let failureCount):
            let error = cancelled(error)
            return (
                .failure(error), cache.send(.requestFailed(failureCount: failureCount), to: record, .failure(error))
            )
        case .cancelled:
            let error = MutationError.cancelled(id: record.id)
            return (.failure(error), cache.send(.requestFailed(failureCount: 0), to: record, .failure(error)))
        }
    }

    /// `MutationError.cancelled` for a cancellation of the call's task, else `error`.
    private func cancelled(_ error: any Error) -> any Error {
        error is CancellationError && (Task.isCancelled || record.machine.isCancelled)
            ? MutationError.cancelled(id: record.id) : error
    }

    /// The callbacks after the request, in their order: the first error one of them threw.
    private func runCallbacks(
        after outcome: Result<any Sendable, any Error>, context: (any Sendable)?, global: MutationCallbacks
    ) async -> (any Error)? {
        var first: (any Error)?
        func run(_ callback: () async throws -> Void) async {
            do { try await callback() } catch { if first == nil { first = error } }
        }
        let info = global.isEmpty ? nil : record.info
        switch outcome {
        case .success(let response):
            if let onSuccess = global.onSuccess, let info { await run { try await onSuccess(response, info) } }
            if let onSuccess = plan.callbacks.onSuccess {
                await run { try await onSuccess(response, request, context) }
            }
            onSuccess?(response, QueryInvalidator(client: client))
            if let onSettled = global.onSettled, let info { await run { try await onSettled(response, nil, info) } }
            if let onSettled = plan.callbacks.onSettled {
                await run { try await onSettled(response, nil, request, context) }
            }
        case .failure(let error):
            if let onError = global.onError, let info { await run { try await onError(error, info) } }
            if let onError = plan.callbacks.onError { await run { try await onError(error, request, context) } }
            if let onSettled = global.onSettled, let info { await run { try await onSettled(nil, error, info) } }
            if let onSettled = plan.callbacks.onSettled {
                await run { try await onSettled(nil, error, request, context) }
            }
        }
        return first
    }

    /// The options' declarative invalidation, after the outcomes `invalidatesWhen` names; with
    /// `waitsForInvalidation`, returns once the refetches it started settled.
    private func invalidate(after outcome: Result<any Sendable, any Error>) async {
        guard let invalidates = plan.invalidates else { return }
        if case .failure = outcome, plan.invalidatesWhen == .succeeded { return }
        let targets = invalidates(outcome, request)
        guard !targets.isEmpty else { return }
        let started = client.invalidate(targets)
        if plan.waitsForInvalidation { await started.settled() }
    }
}
