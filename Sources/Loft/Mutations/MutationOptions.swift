/// The callbacks, retries, scope and network behaviour of a `Mutation`.
///
/// With an optimistic update, `onMutate` returns a context of your type, which `onSuccess`, `onError` and
/// `onSettled` receive typed (no cast):
///
/// ```swift
/// MutationOptions<Like, Post>(
///     onMutate: { like in
///         let before = try? client.getQueryData(["post", like.postID], as: Post.self)
///         client.setQueryData(before.map { $0.liked() }, for: ["post", like.postID])
///         return before  // the context
///     },
///     onError: { _, like, before in client.setQueryData(before ?? nil, for: ["post", like.postID]) }
/// )
/// ```
///
/// Declarative invalidation names what the call makes stale, by tag or key:
///
/// ```swift
/// MutationOptions<NewTodo, Todo>(invalidates: { _, _ in [.tag("todos")] })
/// ```
///
/// **Behavior**
/// - Order per call: the client's `onMutate` then the options' (before the request; the request waits for its
///   scope and the network after them), the request (with `retry`), then on success the client's
///   `onSuccess`, the options', the `execute` closure, the client's `onSettled`, the options'; on failure the
///   client's `onError`, the options', the client's `onSettled`, the options'. Each runs once per call.
/// - The mutation's state changes (to success or error) only after those callbacks ran: an observer that
///   reacts to the success sees what they did (invalidations included).
/// - A callback may throw: the callbacks after it still run, and the call then fails with the first error a
///   callback threw (`mutate` throws it, the state shows it). `onSettled` receives the request's own outcome.
///   When `onMutate` throws, the request is not sent: `onError` (with no context) and `onSettled` run with its
///   error.
/// - `invalidates` runs after the callbacks, with the request's own outcome (a throwing `onSuccess` does not
///   undo what the server did, so a successful request still invalidates); with `.succeeded` (the default) a
///   failed or cancelled call invalidates nothing, with `.settled` it invalidates what the closure returns for
///   the failure.
public struct MutationOptions<Request: Sendable, Response: Sendable>: Sendable {
    /// Before the request: returns the context (erased), `()` when there is no `onMutate`.
    let onMutate: (@Sendable (Request) async throws -> any Sendable)?
    let onSuccess: (@Sendable (Response, Request, any Sendable) async throws -> Void)?
    let onError: (@Sendable (any Error, Request, (any Sendable)?) async throws -> Void)?
    let onSettled: (@Sendable (Response?, (any Error)?, Request, (any Sendable)?) async throws -> Void)?
    /// When a failed request is retried. Default `.never` (a mutation is not repeated unless asked).
    public var retry: RetryPolicy
    /// Mutations with the same scope run one after another, in the order they were submitted; nil (the
    /// default) runs in parallel with every other mutation.
    public var scope: String?
    /// The key that names this kind of mutation: filters (`QueryClient.mutations(matching:)`, `MutationList`)
    /// find its calls by it. Default none.
    public var mutationKey: QueryKey?
    /// What the network does to a call: `.online` (the default) pauses a call submitted offline until the
    /// client is online again; `.always` never pauses.
    public var networkMode: NetworkMode
    /// How long a settled call stays in the client's mutation cache (`mutations(matching:)`). Default 300 s.
    public var gcTime: GCTime
    /// Anything you want to read back from the call (a logger, the client's callbacks). Default empty.
    public var meta: [String: String]
    /// What the call invalidates once it settled (tags, key prefixes, keys), given the request's own outcome
    /// and the request; the invalidated active queries refetch (the call does not wait for them). Runs after
    /// every callback, before the state changes, when `invalidatesWhen` says so. Default none.
    public var invalidates: (@Sendable (Result<Response, any Error>, Request) -> [InvalidationTarget])?
    /// After which outcomes `invalidates` runs. Default `.succeeded`: a failed or cancelled call invalidates
    /// nothing (roll an optimistic update back in `onError`, or choose `.settled` to refetch the truth).
    public var invalidatesWhen: InvalidationMoment

    /// Options whose `onMutate` returns a `Context` that the other callbacks receive typed.
    ///
    /// - Parameters:
    ///   - onMutate: runs first, before the request; may write the cache (an optimistic update) and returns
    ///     what the others need to roll it back.
    ///   - onSuccess: after a successful request, with the response, the request and the context.
    ///   - onError: after the last failed attempt (or a throwing `onMutate`, then with no context).
    ///   - onSettled: last, after either.
    ///   - invalidates: what the call invalidates once settled; see `invalidatesWhen`.
    public init<Context: Sendable>(
        onMutate: @escaping @Sendable (Request) async throws -> Context,
        onSuccess: (@Sendable (Response, Request, Context) async throws -> Void)? = nil,
        onError: (@Sendable (any Error, Request, Context?) async throws -> Void)? = nil,
        onSettled: (@Sendable (Response?, (any Error)?, Request, Context?) async throws -> Void)? = nil,
        invalidates: (@Sendable (Result<Response, any Error>, Request) -> [InvalidationTarget])? = nil,
        invalidatesWhen: InvalidationMoment = .succeeded,
        retry: RetryPolicy = .never, scope: String? = nil, mutationKey: QueryKey? = nil,
        networkMode: NetworkMode = .online, gcTime: GCTime = .seconds(300), meta: [String: String] = [:]
    ) {
        self.onMutate = { request in try await onMutate(request) }
        // The context is the value `onMutate` returned, so the casts below always succeed.
        if let onSuccess {
            self.onSuccess = { response, request, context in
                if let context = context as? Context { try await onSuccess(response, request, context) }
            }
        } else {
            self.onSuccess = nil
        }
        if let onError {
            self.onError = { error, request, context in try await onError(error, request, context as? Context) }
        } else {
            self.onError = nil
        }
        if let onSettled {
            self.onSettled = { response, error, request, context in
                try await onSettled(response, error, request, context as? Context)
            }
        } else {
            self.onSettled = nil
        }
        (self.retry, self.scope, self.mutationKey) = (retry, scope, mutationKey)
        (self.networkMode, self.gcTime, self.meta) = (networkMode, gcTime, meta)
        (self.invalidates, self.invalidatesWhen) = (invalidates, invalidatesWhen)
    }

    /// Options with no `onMutate` (no context). Everything defaults to none; `retry` to `.never`,
    /// `invalidatesWhen` to `.succeeded`.
    public init(
        onSuccess: (@Sendable (Response, Request) async throws -> Void)? = nil,
        onError: (@Sendable (any Error, Request) async throws -> Void)? = nil,
        onSettled: (@Sendable (Response?, (any Error)?, Request) async throws -> Void)? = nil,
        invalidates: (@Sendable (Result<Response, any Error>, Request) -> [InvalidationTarget])? = nil,
        invalidatesWhen: InvalidationMoment = .succeeded,
        retry: RetryPolicy = .never, scope: String? = nil, mutationKey: QueryKey? = nil,
        networkMode: NetworkMode = .online, gcTime: GCTime = .seconds(300), meta: [String: String] = [:]
    ) {
        onMutate = nil
        if let onSuccess {
            self.onSuccess = { response, request, _ in try await onSuccess(response, request) }
        } else {
            self.onSuccess = nil
        }
        if let onError {
            self.onError = { error, request, _ in try await onError(error, request) }
        } else {
            self.onError = nil
        }
        if let onSettled {
            self.onSettled = { response, error, request, _ in try await onSettled(response, error, request) }
        } else {
            self.onSettled = nil
        }
        (self.retry, self.scope, self.mutationKey) = (retry, scope, mutationKey)
        (self.networkMode, self.gcTime, self.meta) = (networkMode, gcTime, meta)
        (self.invalidates, self.invalidatesWhen) = (invalidates, invalidatesWhen)
    }
}
