/// A mutation's callbacks and run options with its types erased, made once per `Mutation`: what `MutationRun`
/// calls. The path every call takes is then code of one type, not generic code that looks its types up at each
/// step (which cost a round trip more than the rest of it together).
///
/// The erased callbacks get back the request, response and context they were given, so their casts to the
/// mutation's types always succeed (a callback whose value were of another type would be skipped).
///
/// A class, made once per mutation: every call's run refers to it instead of copying its closures.
final class MutationSteps: Sendable {
    typealias OnMutate = @Sendable (any Sendable) async throws -> any Sendable
    typealias OnSuccess = @Sendable (any Sendable, any Sendable, any Sendable) async throws -> Void
    typealias OnError = @Sendable (any Error, any Sendable, (any Sendable)?) async throws -> Void
    typealias OnSettled = @Sendable ((any Sendable)?, (any Error)?, any Sendable, (any Sendable)?) async throws -> Void
    typealias Invalidates = @Sendable (Result<any Sendable, any Error>, any Sendable) -> [InvalidationTarget]

    let onMutate: OnMutate?
    let onSuccess: OnSuccess?
    let onError: OnError?
    let onSettled: OnSettled?
    let invalidates: Invalidates?
    let invalidatesWhen: InvalidationMoment
    let retry: RetryPolicy
    let networkMode: NetworkMode
    /// Whether a callback runs after the request (`onSuccess`, `onError` or `onSettled`).
    let hasSettlingCallbacks: Bool

    init(
        onMutate: OnMutate?, onSuccess: OnSuccess?, onError: OnError?, onSettled: OnSettled?,
        invalidates: Invalidates?, invalidatesWhen: InvalidationMoment, retry: RetryPolicy, networkMode: NetworkMode
    ) {
        self.onMutate = onMutate
        self.onSuccess = onSuccess
        self.onError = onError
        self.onSettled = onSettled
        self.invalidates = invalidates
        self.invalidatesWhen = invalidatesWhen
        self.retry = retry
        self.networkMode = networkMode
        hasSettlingCallbacks = onSuccess != nil || onError != nil || onSettled != nil
    }
}

extension MutationOptions {
    /// These options, erased.
    var steps: MutationSteps {
        MutationSteps(
            onMutate: onMutate.map { onMutate -> MutationSteps.OnMutate in
                { request in
                    guard let request = request as? Request else { return () }
                    return try await onMutate(request)
                }
            },
            onSuccess: onSuccess.map { onSuccess -> MutationSteps.OnSuccess in
                { response, request, context in
                    guard let response = response as? Response, let request = request as? Request else { return }
                    try await onSuccess(response, request, context)
                }
            },
            onError: onError.map { onError -> MutationSteps.OnError in
                { error, request, context in
                    guard let request = request as? Request else { return }
                    try await onError(error, request, context)
                }
            },
            onSettled: onSettled.map { onSettled -> MutationSteps.OnSettled in
                { response, error, request, context in
                    guard let request = request as? Request else { return }
                    try await onSettled(response.flatMap { $0 as? Response }, error, request, context)
                }
            },
            invalidates: invalidates.map { invalidates -> MutationSteps.Invalidates in
                { result, request in
                    guard let request = request as? Request else { return [] }
                    switch result {
                    case .success(let response):
                        guard let response = response as? Response else { return [] }
                        return invalidates(.success(response), request)
                    case .failure(let error):
                        return invalidates(.failure(error), request)
                    }
                }
            },
            invalidatesWhen: invalidatesWhen, retry: retry, networkMode: networkMode)
    }
}
