/// The callbacks, retries, scope and network behaviour of a `Mutation`.
///
/// The callbacks have one shape whether or not `onMutate` is given (TanStack's): the response or error, the
/// request, and the context `onMutate` returned (`Void` without one; nil for a call restored after a restart,
/// whose `onMutate` ran before it). Adding an optimistic update touches one closure:
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
/// - Options given to a `Mutation` override its key's `QueryClient.setMutationDefaults(_:for:)` field by field
///   (a field left out, nil, is taken from the defaults).
public struct MutationOptions<Request: Sendable, Response: Sendable>: Sendable {
    /// The callbacks, erased once, here: their request, response and context are the call's, cast back to
    /// their types inside (a callback handed a value of another type, which a call never does, is skipped).
    private(set) var callbacks = MutationCallSteps()
    /// The fields as given: nil where these options say nothing.
    private var set: Fields

    private struct Fields: Sendable {
        var retry: RetryPolicy?
        var scope: String?
        var mutationKey: QueryKey?
        var networkMode: NetworkMode?
        var gcTime: GCTime?
        var meta: [String: String]?
        var invalidates: (@Sendable (Result<Response, any Error>, Request) -> [InvalidationTarget])?
        var invalidatesWhen: InvalidationMoment?
        var waitsForInvalidation: Bool?
    }

    /// When a failed request is retried. Default `.never` (a mutation is not repeated unless asked).
    public var retry: RetryPolicy {
        get { set.retry ?? .never }
        set { set.retry = newValue }
    }
    /// Mutations with the same scope run one after another, in the order they were submitted; nil (the
    /// default) runs in parallel with every other mutation.
    public var scope: String? {
        get { set.scope }
        set { set.scope = newValue }
    }
    /// The key that names this kind of mutation: filters (`QueryClient.mutations(matching:)`, `MutationList`)
    /// find its calls by it, and `setMutationDefaults` gives it defaults by prefix. Default none.
    public var mutationKey: QueryKey? {
        get { set.mutationKey }
        set { set.mutationKey = newValue }
    }
    /// What the network does to a call: `.online` (the default) pauses a call submitted offline until the
    /// client is online again; `.always` never pauses.
    public var networkMode: NetworkMode {
        get { set.networkMode ?? .online }
        set { set.networkMode = newValue }
    }
    /// How long a settled call stays in the client's mutation cache (`mutations(matching:)`). Default 300 s.
    public var gcTime: GCTime {
        get { set.gcTime ?? .seconds(300) }
        set { set.gcTime = newValue }
    }
    /// Anything you want to read back from the call (a logger, the client's callbacks). Default empty.
    public var meta: [String: String] {
        get { set.meta ?? [:] }
        set { set.meta = newValue }
    }
    /// What the call invalidates once it settled (tags, key prefixes, keys), given the request's own outcome
    /// and the request; the invalidated active queries refetch (the call waits for them only with
    /// `waitsForInvalidation`). Runs after every callback, before the state changes, when `invalidatesWhen`
    /// says so. Default none.
    public var invalidates: (@Sendable (Result<Response, any Error>, Request) -> [InvalidationTarget])? {
        get { set.invalidates }
        set { set.invalidates = newValue }
    }
    /// After which outcomes `invalidates` runs. Default `.succeeded`: a failed or cancelled call invalidates
    /// nothing (roll an optimistic update back in `onError`, or choose `.settled` to refetch the truth).
    public var invalidatesWhen: InvalidationMoment {
        get { set.invalidatesWhen ?? .succeeded }
        set { set.invalidatesWhen = newValue }
    }
    /// Whether the call stays pending until the refetches its `invalidates` started have settled (TanStack's
    /// `onSuccess` returning the invalidation's promise): with `true`, `mutate` returns, and the state turns
    /// success or failure, only once the invalidated active queries hold the server's new data (a refetch
    /// paused for the network is not waited for; a failed refetch leaves its error in its query and does not
    /// fail the call). Default `false`: the call settles as soon as it invalidated.
    public var waitsForInvalidation: Bool {
        get { set.waitsForInvalidation ?? false }
        set { set.waitsForInvalidation = newValue }
    }

    /// Options whose `onMutate` returns a `Context` that the other callbacks receive typed.
    ///
    /// - Parameters:
    ///   - onMutate: runs first, before the request; may write the cache (an optimistic update) and returns
    ///     what the others need to roll it back.
    ///   - onSuccess: after a successful request, with the response, the request and the context (nil for a
    ///     call restored after a restart).
    ///   - onError: after the last failed attempt (or a throwing `onMutate`, then with no context).
    ///   - onSettled: last, after either.
    ///   - invalidates: what the call invalidates once settled; see `invalidatesWhen` and `waitsForInvalidation`.
    ///   - invalidatesWhen: after which outcomes `invalidates` runs (``invalidatesWhen``).
    ///   - waitsForInvalidation: whether the call waits for the refetches it started (``waitsForInvalidation``).
    ///   - retry: the retry policy (``retry``).
    ///   - scope: the scope whose calls run one at a time (``scope``).
    ///   - mutationKey: the key whose defaults apply (``mutationKey``).
    ///   - networkMode: when the call may run (``networkMode``).
    ///   - gcTime: how long a settled call stays listed (``gcTime``).
    ///   - meta: what the call carries for its observers (``meta``).
    ///
    /// For every option, nil takes the key's defaults, then the built-in default.
    public init<Context: Sendable>(
        onMutate: @escaping @Sendable (Request) async throws -> Context,
        onSuccess: (@Sendable (Response, Request, Context?) async throws -> Void)? = nil,
        onError: (@Sendable (any Error, Request, Context?) async throws -> Void)? = nil,
        onSettled: (@Sendable (Response?, (any Error)?, Request, Context?) async throws -> Void)? = nil,
        invalidates: (@Sendable (Result<Response, any Error>, Request) -> [InvalidationTarget])? = nil,
        invalidatesWhen: InvalidationMoment? = nil, waitsForInvalidation: Bool? = nil, retry: RetryPolicy? = nil,
        scope: String? = nil, mutationKey: QueryKey? = nil, networkMode: NetworkMode? = nil, gcTime: GCTime? = nil,
        meta: [String: String]? = nil
    ) {
        callbacks.onMutate = { request in
            guard let request = request as? Request else { return () }
            return try await onMutate(request)
        }
        if let onSuccess {
            callbacks.onSuccess = { response, request, context in
                guard let response = response as? Response, let request = request as? Request else { return }
                try await onSuccess(response, request, context as? Context)
            }
        }
        if let onError {
            callbacks.onError = { error, request, context in
                guard let request = request as? Request else { return }
                try await onError(error, request, context as? Context)
            }
        }
        if let onSettled {
            callbacks.onSettled = { response, error, request, context in
                guard let request = request as? Request else { return }
                try await onSettled(response as? Response, error, request, context as? Context)
            }
        }
        set = Fields(
            retry: retry, scope: scope, mutationKey: mutationKey, networkMode: networkMode, gcTime: gcTime,
            meta: meta, invalidates: invalidates, invalidatesWhen: invalidatesWhen,
            waitsForInvalidation: waitsForInvalidation)
    }

    /// Options with no `onMutate`: the callbacks' context is `Void` (nil for a call restored after a restart).
    /// Everything defaults to none (nil takes the key's defaults, then the built-in default).
    public init(
        onSuccess: (@Sendable (Response, Request, Void?) async throws -> Void)? = nil,
        onError: (@Sendable (any Error, Request, Void?) async throws -> Void)? = nil,
        onSettled: (@Sendable (Response?, (any Error)?, Request, Void?) async throws -> Void)? = nil,
        invalidates: (@Sendable (Result<Response, any Error>, Request) -> [InvalidationTarget])? = nil,
        invalidatesWhen: InvalidationMoment? = nil, waitsForInvalidation: Bool? = nil, retry: RetryPolicy? = nil,
        scope: String? = nil, mutationKey: QueryKey? = nil, networkMode: NetworkMode? = nil, gcTime: GCTime? = nil,
        meta: [String: String]? = nil
    ) {
        if let onSuccess {
            callbacks.onSuccess = { response, request, context in
                guard let response = response as? Response, let request = request as? Request else { return }
                try await onSuccess(response, request, context.map { _ in () })
            }
        }
        if let onError {
            callbacks.onError = { error, request, context in
                guard let request = request as? Request else { return }
                try await onError(error, request, context.map { _ in () })
            }
        }
        if let onSettled {
            callbacks.onSettled = { response, error, request, context in
                guard let request = request as? Request else { return }
                try await onSettled(response as? Response, error, request, context.map { _ in () })
            }
        }
        set = Fields(
            retry: retry, scope: scope, mutationKey: mutationKey, networkMode: networkMode, gcTime: gcTime,
            meta: meta, invalidates: invalidates, invalidatesWhen: invalidatesWhen,
            waitsForInvalidation: waitsForInvalidation)
    }

    /// These options over `defaults`, field by field: what these leave out (nil) is taken from `defaults`.
    func merged(over defaults: MutationOptions) -> MutationOptions {
        var merged = self
        merged.callbacks = callbacks.merged(over: defaults.callbacks)
        merged.set.retry = set.retry ?? defaults.set.retry
        merged.set.scope = set.scope ?? defaults.set.scope
        merged.set.mutationKey = set.mutationKey ?? defaults.set.mutationKey
        merged.set.networkMode = set.networkMode ?? defaults.set.networkMode
        merged.set.gcTime = set.gcTime ?? defaults.set.gcTime
        merged.set.meta = set.meta ?? defaults.set.meta
        merged.set.invalidates = set.invalidates ?? defaults.set.invalidates
        merged.set.invalidatesWhen = set.invalidatesWhen ?? defaults.set.invalidatesWhen
        merged.set.waitsForInvalidation = set.waitsForInvalidation ?? defaults.set.waitsForInvalidation
        return merged
    }

    /// `invalidates`, erased as the callbacks are.
    var erasedInvalidates: (@Sendable (Result<any Sendable, any Error>, any Sendable) -> [InvalidationTarget])? {
        guard let invalidates else { return nil }
        return { outcome, request in
            guard let request = request as? Request else { return [] }
            switch outcome {
            case .success(let response):
                guard let response = response as? Response else { return [] }
                return invalidates(.success(response), request)
            case .failure(let error):
                return invalidates(.failure(error), request)
            }
        }
    }
}

/// A mutation's options as its calls take them, without their types: made once per `Mutation` (or per call when
/// its key has defaults), so that a call reads no generic options (which looks their type up at each read).
struct MutationCallPlan: Sendable {
    let callbacks: MutationCallSteps
    let invalidates: (@Sendable (Result<any Sendable, any Error>, any Sendable) -> [InvalidationTarget])?
    let invalidatesWhen: InvalidationMoment
    let waitsForInvalidation: Bool
    let retry: RetryPolicy
    let networkMode: NetworkMode
    let scope: String?
    let mutationKey: QueryKey?
    let meta: [String: String]
    /// How long a settled call stays listed, in nanoseconds (nil: until removed by hand).
    let keptFor: Int64?

    init<Request, Response>(_ options: MutationOptions<Request, Response>) {
        callbacks = options.callbacks
        invalidates = options.erasedInvalidates
        invalidatesWhen = options.invalidatesWhen
        waitsForInvalidation = options.waitsForInvalidation
        retry = options.retry
        networkMode = options.networkMode
        scope = options.scope
        mutationKey = options.mutationKey
        meta = options.meta
        keptFor = if case .duration(let duration) = options.gcTime { duration.nanoseconds } else { nil }
    }
}

/// A mutation's callbacks with their types erased (`MutationOptions.callbacks`): what a call's run calls.
struct MutationCallSteps: Sendable {
    var onMutate: (@Sendable (any Sendable) async throws -> any Sendable)?
    var onSuccess: (@Sendable (any Sendable, any Sendable, (any Sendable)?) async throws -> Void)?
    var onError: (@Sendable (any Error, any Sendable, (any Sendable)?) async throws -> Void)?
    var onSettled: (@Sendable ((any Sendable)?, (any Error)?, any Sendable, (any Sendable)?) async throws -> Void)?

    /// Whether a callback runs after the request.
    var settles: Bool {
        onSuccess != nil || onError != nil || onSettled != nil
    }

    /// These over `defaults`, callback by callback.
    func merged(over defaults: MutationCallSteps) -> MutationCallSteps {
        MutationCallSteps(
            onMutate: onMutate ?? defaults.onMutate, onSuccess: onSuccess ?? defaults.onSuccess,
            onError: onError ?? defaults.onError, onSettled: onSettled ?? defaults.onSettled)
    }
}
