/// What `Mutation.execute(with:onSuccess:)` returns: the call runs in the background, and a caller who wants
/// its response awaits it here.
///
/// ```swift
/// rename.execute(with: request)                          // runs in the background
/// let user = try await rename.execute(with: request).response
/// ```
///
/// **Behavior**
/// - `response` is the call's response once its callbacks ran (and, with `waitsForInvalidation`, once the
///   refetches its `invalidates` started settled); it throws what `mutate(_:)` throws.
/// - Awaiting it any number of times, or never, changes nothing: the call runs either way.
/// - The wait lasts until the call settled, also for a cancelled awaiting task: cancel the call itself with
///   `Mutation.cancel()`, or use `mutate(_:)`, whose caller's cancellation cancels the call.
public struct StartedMutation<Response: Sendable>: Sendable {
    private let task: MutationTask

    init(_ task: MutationTask) {
        self.task = task
    }

    /// The call's response.
    ///
    /// - Throws: the request's error once retries are exhausted (after `onError` and `onSettled` ran), the
    ///   first error a callback threw, or `MutationError.cancelled` when the call was cancelled.
    public var response: Response {
        get async throws {
            let outcome: Result<any Sendable, any Error>
            do { outcome = try await task.value } catch { outcome = .failure(error) }
            guard let response = try outcome.get() as? Response else {
                throw QueryError.typeMismatch(
                    key: mutationSnapshotKey, expected: "\(Response.self)", actual: "another type")
            }
            return response
        }
    }

    /// The call's outcome, success or failure, without throwing.
    public var result: Result<Response, any Error> {
        get async {
            do { return .success(try await response) } catch { return .failure(error) }
        }
    }
}
