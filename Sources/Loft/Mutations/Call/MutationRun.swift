/// The work of one mutation call's task: it performs the steps its state machine gives it
/// (`MutationCallAction.isStep`: `onMutate`, the wait for the scope's turn, the request through the retryer,
/// the callbacks and the invalidation, and at last the outcome it returns) and answers each with the next
/// event, with what the step brought (the context, the response, the errors). It decides nothing: the order,
/// the outcome and every rule are the machine's.
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
        var step = first
        while let current = step {
            switch current {
            case .runOnMutate:
                do {
                    if let onMutate = global.onMutate { try await onMutate(record.info) }
                    var context: (any Sendable)? = ()
                    if let onMutate = plan.callbacks.onMutate { context = try await onMutate(request) }
                    step = cache.send(.mutated(context: context), to: record)
                } catch {
                    step = failed(0, error, cache)
                }
            case .waitForTurn:
                do {
                    try await cache.awaitTurn(record)
                    step = cache.send(.turnReached, to: record)
                } catch {
                    step = failed(0, error, cache)
                }
            case .sendRequest:
                step = await sendRequest(cache)
            case .runCallbacks(let handOff):
                let errors = await runCallbacks(after: handOff.outcome, context: handOff.context)
                await invalidate(after: handOff.outcome, handOff.invalidation)
                step = cache.send(.callbacksFinished(errors: errors), to: record)
            case .finish(let handOff):
                return handOff.outcome
            case .persist, .forget, .leaveScope, .publish, .armRemoval, .cancelTask:
                preconditionFailure("mutation call \(record.id): \(current) is not a step")
            }
        }
        preconditionFailure("mutation call \(record.id): its steps ended before it settled")
    }

    /// The request through the client's retryer, each attempt's failure and each pause told to the machine.
    private func sendRequest(_ cache: MutationCache) async -> MutationCallAction? {
        let record = record
        let result = await Retryer.run(
            policy: plan.retry, networkMode: plan.networkMode, context: client.context,
            reporting: { progress in
                switch progress {
                case .retrying(let failureCount, let error):
                    cache.send(.attemptFailed(failureCount: failureCount, error: error), to: record)
                case .paused:
                    cache.send(.pausedForNetwork, to: record)
                case .continued:
                    cache.send(.resumed, to: record)
                }
            }, send)
        switch result {
        case .success(let response):
            return cache.send(.requestSucceeded(response: response), to: record)
        case .failure(let error, let failureCount):
            return failed(failureCount, error, cache)
        case .cancelled:
            return failed(0, CancellationError(), cache)
        }
    }

    /// Tells the machine the step failed with `error`, and whether this task was cancelled (the machine decides
    /// what the call fails with).
    private func failed(_ failureCount: Int, _ error: any Error, _ cache: MutationCache) -> MutationCallAction? {
        cache.send(
            .requestFailed(failureCount: failureCount, error: error, taskCancelled: Task.isCancelled), to: record)
    }

    /// The callbacks after the request, in the machine's order (`MutationCallStateMachine.callbackOrder`): every
    /// error they threw, in order (one throwing does not stop the others).
    private func runCallbacks(
        after outcome: Result<any Sendable, any Error>, context: (any Sendable)?
    ) async -> [any Error] {
        var errors: [any Error] = []
        let info = global.isEmpty ? nil : record.info
        let (response, failure): ((any Sendable)?, (any Error)?) =
            switch outcome {
            case .success(let response): (response, nil)
            case .failure(let error): (nil, error)
            }
        for callback in MutationCallStateMachine.callbackOrder(succeeded: failure == nil) {
            do {
                switch callback {
                case .clientOnSuccess:
                    if let run = global.onSuccess, let info, let response { try await run(response, info) }
                case .onSuccess:
                    if let run = plan.callbacks.onSuccess, let response { try await run(response, request, context) }
                case .executeOnSuccess:
                    if let response { onSuccess?(response, QueryInvalidator(client: client)) }
                case .clientOnError:
                    if let run = global.onError, let info, let failure { try await run(failure, info) }
                case .onError:
                    if let run = plan.callbacks.onError, let failure { try await run(failure, request, context) }
                case .clientOnSettled:
                    if let run = global.onSettled, let info { try await run(response, failure, info) }
                case .onSettled:
                    if let run = plan.callbacks.onSettled { try await run(response, failure, request, context) }
                }
            } catch {
                errors.append(error)
            }
        }
        return errors
    }

    /// The options' invalidation, when the machine hands one (`invalidatesWhen` allowed it for this outcome);
    /// with `waits`, returns once the refetches it started settled.
    private func invalidate(
        after outcome: Result<any Sendable, any Error>, _ invalidation: MutationCallStateMachine.Invalidation?
    ) async {
        guard let invalidation, let invalidates = plan.invalidates else { return }
        let targets = invalidates(outcome, request)
        guard !targets.isEmpty else { return }
        let started = client.invalidate(targets)
        if invalidation.waits { await started.settled() }
    }
}
