/// The callbacks and retries of a `Mutation`. The callbacks run in this order: `onMutate` before the request,
/// then `onSuccess` or `onError`, then `onSettled`.
///
/// ```swift
/// MutationOptions<NewUser, User>(
///     onMutate: { new in /* optimistic update; return what onError needs to roll back */ nil },
///     onSuccess: { user, _, _ in print("created", user.id) },
///     onError: { error, _, _ in print(error) }
/// )
/// ```
public struct MutationOptions<Request: Sendable, Response: Sendable>: Sendable {
    /// Runs before the request; whatever it returns (the context, for example a snapshot to roll back to)
    /// is handed to the other callbacks. Default none.
    public var onMutate: (@Sendable (Request) async -> (any Sendable)?)?
    /// Runs after a success with the response, the request and the context. Default none.
    public var onSuccess: (@Sendable (Response, Request, (any Sendable)?) async -> Void)?
    /// Runs after the last failed attempt with the error, the request and the context. Default none.
    public var onError: (@Sendable (any Error, Request, (any Sendable)?) async -> Void)?
    /// Runs last, after a success or a failure. Default none.
    public var onSettled: (@Sendable (Response?, (any Error)?, Request, (any Sendable)?) async -> Void)?
    /// When a failed request is retried. Default `.never` (a mutation is not repeated unless asked).
    public var retry: RetryPolicy

    /// Makes options; everything defaults to "none", and `retry` to `.never`.
    public init(
        onMutate: (@Sendable (Request) async -> (any Sendable)?)? = nil,
        onSuccess: (@Sendable (Response, Request, (any Sendable)?) async -> Void)? = nil,
        onError: (@Sendable (any Error, Request, (any Sendable)?) async -> Void)? = nil,
        onSettled: (@Sendable (Response?, (any Error)?, Request, (any Sendable)?) async -> Void)? = nil,
        retry: RetryPolicy = .never
    ) {
        self.onMutate = onMutate
        self.onSuccess = onSuccess
        self.onError = onError
        self.onSettled = onSettled
        self.retry = retry
    }
}
