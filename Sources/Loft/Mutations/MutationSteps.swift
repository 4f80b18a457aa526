/// A mutation's callbacks and run options with its types erased, made once per `Mutation`: what `MutationRun`
/// calls. The path every call takes is then code of one type, not generic code that looks its types up at each
/// step (which cost a round trip more than the rest of it together).
///
/// The erased callbacks get back the request, response and context they were given, so their casts to the
/// mutation's types always succeed (a callback whose value were of another type would be skipped).
struct MutationSteps: Sendable {
    var onMutate: (@Sendable (any Sendable) async throws -> any Sendable)? = nil
    var onSuccess: (@Sendable (any Sendable, any Sendable, any Sendable) async throws -> Void)? = nil
    var onError: (@Sendable (any Error, any Sendable, (any Sendable)?) async throws -> Void)? = nil
    var onSettled: (@Sendable ((any Sendable)?, (any Error)?, any Sendable, (any Sendable)?) async throws -> Void)? =
        nil
    var invalidates: (@Sendable (Result<any Sendable, any Error>, any Sendable) -> [InvalidationTarget])? = nil
    var invalidatesWhen: InvalidationMoment
    var retry: RetryPolicy
    var networkMode: NetworkMode
}

extension MutationOptions {
    /// These options, erased.
    var steps: MutationSteps {
        var steps = MutationSteps(
            invalidatesWhen: invalidatesWhen, retry: retry, networkMode: networkMode)
        if let onMutate {
            steps.onMutate = { request in
                guard let request = request as? Request else { return () }
                return try await onMutate(request)
            }
        }
        if let onSuccess {
            steps.onSuccess = { response, request, context in
                guard let response = response as? Response, let request = request as? Request else { return }
                try await onSuccess(response, request, context)
            }
        }
        if let onError {
            steps.onError = { error, request, context in
                guard let request = request as? Request else { return }
                try await onError(error, request, context)
            }
        }
        if let onSettled {
            steps.onSettled = { response, error, request, context in
                guard let request = request as? Request else { return }
                try await onSettled(response.flatMap { $0 as? Response }, error, request, context)
            }
        }
        if let invalidates {
            steps.invalidates = { result, request in
                guard let request = request as? Request else { return [] }
                switch result {
                case .success(let response):
                    guard let response = response as? Response else { return [] }
                    return invalidates(.success(response), request)
                case .failure(let error):
                    return invalidates(.failure(error), request)
                }
            }
        }
        return steps
    }
}
