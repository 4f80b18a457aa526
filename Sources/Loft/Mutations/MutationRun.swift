import Synchronization

/// One call of a `Mutation` from its `onMutate` to its settlement: the order of the callbacks, the wait for
/// the scope, the request through the retryer, and what the call's outcome is when a callback throws. Not
/// generic: the mutation hands it its steps erased (`MutationSteps`) and the request in a closure. A class, so
/// that the call's task holds it by reference instead of copying the listing and the steps it carries.
///
/// **Behavior**
/// - The client's callbacks run before the mutation's of the same name; see `MutationOptions` for the order.
/// - A throwing callback does not stop the ones after it; the call settles with the first callback error.
/// - The options' `invalidates` runs after the callbacks, with the request's own outcome.
/// - The call settles in the client's mutation cache only after every callback ran, which frees its scope;
///   then its mutation is told (`MutationCallOwner`).
/// - It is the work of the call's task (`TrackedWork`): not generic, so the task's closure is specialised for it
///   and runs it without one more async frame.
final class MutationRun: TrackedWork {
    /// Whether `run()` returned: its call settled and its mutation was told.
    private let ended = Atomic<Bool>(false)
    /// The call as it was submitted (shared with its record in the mutation cache).
    let call: MutationSubmission
    /// Restored after a restart: `onMutate` ran before it, in the process that submitted it.
    let isRestored: Bool
    let client: QueryClient
    /// The mutation, told when the call settled (held until then: a mutation is freed once its calls end).
    let owner: any MutationCallOwner
    let steps: MutationSteps
    /// The request, bound to the call, sent once per attempt.
    let send: @Sendable () async throws -> MutationResponse
    /// The `onSuccess` given to `execute(with:onSuccess:)`, if any, given the response's box.
    let onSuccess: (@Sendable (AnyObject & Sendable, QueryInvalidator) -> Void)?

    init(
        call: MutationSubmission, isRestored: Bool, client: QueryClient, owner: any MutationCallOwner,
        steps: MutationSteps,
        send: @escaping @Sendable () async throws -> MutationResponse,
        onSuccess: (@Sendable (AnyObject & Sendable, QueryInvalidator) -> Void)?
    ) {
        self.call = call
        self.isRestored = isRestored
        self.client = client
        self.owner = owner
        self.steps = steps
        self.send = send
        self.onSuccess = onSuccess
    }

    private var id: UInt64 { call.id }
    private var request: any Sendable { call.request }

    /// Runs the call, then tells its mutation.
    @inline(__always)
    func run() async -> Result<MutationResponse, any Error> {
        let outcome = await perform()
        owner.callSettled(id, outcome)
        ended.store(true, ordering: .releasing)
        return outcome
    }

    /// Whether the run ended (a call whose fetcher answers at once has ended when its task is handed over).
    var hasEnded: Bool {
        ended.load(ordering: .acquiring)
    }

    /// Runs the call. What is not needed by a call without callbacks (`onMutate`, the callbacks after the
    /// request) is in functions of their own, whose frames such a call never allocates: inlined here, they
    /// made this frame outgrow the task's first block of memory, and every call allocated more.
    @inline(__always)
    private func perform() async -> Result<MutationResponse, any Error> {
        let cache = client.mutationCache
        let global = cache.callbacks
        // A restored call's `onMutate` ran before the restart: its callbacks get no context.
        var context: (any Sendable)?
        var outcome: Result<MutationResponse, any Error>
        do {
            if !isRestored {
                context = global.onMutate == nil && steps.onMutate == nil ? () : try await runOnMutate(global)
            }
            // Saved before it is first sent, so that a restart sends it again: at least once.
            cache.journal.write(call)
            if let scope = call.scope { try await cache.waitForTurn(id, scope: scope) }
            outcome = await attempt()
        } catch is CancellationError {
            outcome = .failure(MutationError.cancelled(id: id))
        } catch {
            outcome = .failure(error)
        }
        var callbackError: (any Error)?
        if !global.isEmpty || steps.hasSettlingCallbacks || onSuccess != nil {
            callbackError = await runCallbacks(after: outcome, context: context, global: global)
        }
        invalidate(after: outcome)
        if let callbackError { outcome = .failure(callbackError) }
        cache.settle(id, outcome)
        return outcome
    }

    /// The `onMutate`s, the client's first: the context the mutation's returns.
    @inline(never)
    private func runOnMutate(_ global: MutationCallbacks) async throws -> any Sendable {
        if let onMutate = global.onMutate { try await onMutate(call.info()) }
        return try await steps.onMutate?(request) ?? ()
    }

    /// The callbacks after the request, in their order: the first error one of them threw.
    @inline(never)
    private func runCallbacks(
        after outcome: Result<MutationResponse, any Error>, context: (any Sendable)?, global: MutationCallbacks
    ) async -> (any Error)? {
        var callbackError: (any Error)?
        // The listing as the callbacks see it (failure count, pause), read only when a client callback wants it.
        let listing = global.isEmpty ? nil : client.mutationCache.listing(id)
        let request = request
        switch outcome {
        case .success(let boxed):
            let response = boxed.value
            if let onSuccess = global.onSuccess, let info = listing?.info {
                await Self.run(&callbackError) { try await onSuccess(response, info) }
            }
            if let onSuccess = steps.onSuccess {
                await Self.run(&callbackError) { try await onSuccess(response, request, context ?? ()) }
            }
            onSuccess?(boxed.box, QueryInvalidator(client: client))
            if let onSettled = global.onSettled, let info = listing?.info {
                await Self.run(&callbackError) { try await onSettled(response, nil, info) }
            }
            if let onSettled = steps.onSettled {
                await Self.run(&callbackError) { try await onSettled(response, nil, request, context) }
            }
        case .failure(let error):
            if let onError = global.onError, let info = listing?.info {
                await Self.run(&callbackError) { try await onError(error, info) }
            }
            if let onError = steps.onError {
                await Self.run(&callbackError) { try await onError(error, request, context) }
            }
            if let onSettled = global.onSettled, let info = listing?.info {
                await Self.run(&callbackError) { try await onSettled(nil, error, info) }
            }
            if let onSettled = steps.onSettled {
                await Self.run(&callbackError) { try await onSettled(nil, error, request, context) }
            }
        }
        return callbackError
    }

    /// The request through the client's retryer, reporting pauses and failed attempts to the mutation cache.
    @inline(__always)
    private func attempt() async -> Result<MutationResponse, any Error> {
        let (cache, id) = (client.mutationCache, id)
        let outcome = await Retryer.run(
            policy: steps.retry, networkMode: steps.networkMode, context: client.context,
            reporting: { progress in
                switch progress {
                case .retrying(let failureCount, _): cache.update(id, failureCount: failureCount)
                case .paused: cache.update(id, isPaused: true)
                case .continued: cache.update(id, isPaused: false)
                }
            },
            send)
        switch outcome {
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
    private func invalidate(after outcome: Result<MutationResponse, any Error>) {
        guard let invalidates = steps.invalidates else { return }
        if case .failure = outcome, steps.invalidatesWhen == .succeeded { return }
        let targets = invalidates(outcome.map(\.value), request)
        if !targets.isEmpty { client.invalidate(targets) }
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

/// What a call's run tells its mutation (whose types it does not know).
protocol MutationCallOwner: AnyObject, Sendable {
    /// The call settled with `outcome`, after every callback ran.
    func callSettled(_ id: UInt64, _ outcome: Result<MutationResponse, any Error>)
}
