/// One call of a `Mutation` from its `onMutate` to its settlement: the order of the callbacks, the wait for
/// the scope, the request through the retryer, and what the call's outcome is when a callback throws.
///
/// **Behavior**
/// - The client's callbacks run before the mutation's of the same name; see `MutationOptions` for the order.
/// - A throwing callback does not stop the ones after it; the call settles with the first callback error.
/// - The options' `invalidates` runs after the callbacks, with the request's own outcome.
/// - The call settles in the client's mutation cache only after every callback ran, which frees its scope.
struct MutationRun<Request: Sendable, Response: Sendable>: Sendable {
    let id: UInt64
    let request: Request
    /// Restored after a restart: `onMutate` ran before it, in the process that submitted it.
    let isRestored: Bool
    let mutation: Mutation<Request, Response>

    func perform(_ onSuccess: (@Sendable (Response, QueryInvalidator) -> Void)?) async -> Result<Response, any Error> {
        let cache = mutation.client.mutationCache
        let global = cache.callbacks
        let options = mutation.options
        let submitted = cache.info(id)
        var context: (any Sendable)?
        var outcome: Result<Response, any Error>
        do {
            if !isRestored {
                if let submitted { try await global.onMutate?(submitted) }
                context = try await options.onMutate?(request) ?? ()
            }
            // Saved before it is first sent, so that a restart sends it again: at least once.
            if let submitted { cache.journal.write(submitted) }
            try await cache.waitForTurn(id)
            outcome = await send(MutationCall(id: id, idempotencyKey: submitted?.idempotencyKey ?? ""))
        } catch is CancellationError {
            outcome = .failure(MutationError.cancelled(id: id))
        } catch {
            outcome = .failure(error)
        }
        var callbackError: (any Error)?
        let info = cache.info(id)
        switch outcome {
        case .success(let response):
            await Self.run(&callbackError) { if let info { try await global.onSuccess?(response, info) } }
            await Self.run(&callbackError) { try await options.onSuccess?(response, request, context ?? ()) }
            onSuccess?(response, QueryInvalidator(client: mutation.client))
            await Self.run(&callbackError) { if let info { try await global.onSettled?(response, nil, info) } }
            await Self.run(&callbackError) { try await options.onSettled?(response, nil, request, context) }
        case .failure(let error):
            await Self.run(&callbackError) { if let info { try await global.onError?(error, info) } }
            await Self.run(&callbackError) { try await options.onError?(error, request, context) }
            await Self.run(&callbackError) { if let info { try await global.onSettled?(nil, error, info) } }
            await Self.run(&callbackError) { try await options.onSettled?(nil, error, request, context) }
        }
        invalidate(after: outcome)
        let result = callbackError.map { .failure($0) } ?? outcome
        cache.settle(id, result.map { $0 as any Sendable })
        return result
    }

    /// The request through the client's retryer, reporting pauses and failed attempts to the mutation cache.
    private func send(_ call: MutationCall) async -> Result<Response, any Error> {
        let (cache, id) = (mutation.client.mutationCache, id)
        var hooks = Retryer.Hooks()
        hooks.onRetry = { failureCount, _ in cache.update(id, failureCount: failureCount) }
        hooks.onPause = { cache.update(id, isPaused: true) }
        hooks.onContinue = { cache.update(id, isPaused: false) }
        switch await mutation.send(request, call, hooks: hooks) {
        case .success(let response):
            return .success(response)
        case .failure(let error, let failureCount):
            cache.update(id, failureCount: failureCount)
            return .failure(error)
        case .cancelled:
            return .failure(MutationError.cancelled(id: id))
        }
    }

    /// The options' declarative invalidation, after the outcomes `invalidatesWhen` names.
    private func invalidate(after outcome: Result<Response, any Error>) {
        let options = mutation.options
        guard let invalidates = options.invalidates else { return }
        if case .failure = outcome, options.invalidatesWhen == .succeeded { return }
        let targets = invalidates(outcome, request)
        if !targets.isEmpty { mutation.client.invalidate(targets) }
    }

    /// Runs a callback; its error, if it is the first, becomes the call's.
    private static func run(_ first: inout (any Error)?, _ callback: () async throws -> Void) async {
        do {
            try await callback()
        } catch {
            if first == nil { first = error }
        }
    }
}
