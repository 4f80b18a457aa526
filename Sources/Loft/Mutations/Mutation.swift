/// A change on the server (create, update, delete), with its state and the refresh of the queries it
/// affects.
///
/// ```swift
/// let createUser = Mutation<NewUser, User>(client: client) { new in try await api.create(new) }
/// createUser.execute(with: NewUser(name: "ada")) { user, invalidate in
///     invalidate("users", .lastData)
/// }
/// ```
///
/// **Behavior**
/// - Each call (`execute`, `mutate`) is listed in the client's mutation cache (`QueryClient.mutations`) from
///   submission until `gcTime` after it settled, with its events on `QueryClient.events`. Its life is one
///   state machine (`MutationCallStateMachine`: submitted, mutating, waiting for its scope, running, paused
///   offline, settling, settled); the mutation's state is a view of its latest call there.
/// - `state` is `.idle` until the first call, `.loading` while a call is pending (running, waiting for its
///   scope, or paused offline: `isPaused`), then `.succeed(response)` or `.failed(error)` once every
///   callback ran (see `MutationOptions` for their order and for throwing callbacks). With calls that overlap,
///   the state follows the latest call. The latest call (`latestCall`, `status`, `data`, `error`, `request`,
///   `failureCount`, `failureReason`, `isPaused`, `submittedAt`) is kept until the next call or `reset()`,
///   even after the cache collected it.
/// - One mutation serves concurrent calls (a server's handlers may share one): each call is a call of its own,
///   and each caller of `mutate` gets its own call's response or error, whatever the others do.
/// - Its options override the defaults of its `mutationKey` (`QueryClient.setMutationDefaults(_:for:)`, by
///   key prefix) field by field, read at each call.
/// - `mutate` starts its call on the thread of the task that awaits it, where it runs until it first suspends;
///   `execute` starts its call in a task of its own, so that it returns at once.
/// - Calls with the same `scope` run one at a time in submission order; a failed or cancelled call lets the
///   next one run.
/// - With `networkMode .online` (the default) a call submitted offline waits, paused, for the network.
/// - Retries (`retry`, default none) wait on the client's scheduler, through the retryer queries use.
/// - `cancel()`, `QueryClient.cancelMutations(matching:)` or cancelling the task awaiting `mutate` cancels a
///   pending call: its task is cancelled, `onError` and `onSettled` run with `MutationError.cancelled`.
/// - Observable; a mutation nobody references is freed (its pending calls go on).
public final class Mutation<Request: Sendable, Response: Sendable>: Sendable {
    /// The request of a mutation: its input in, the server's response out.
    public typealias Fetcher = @Sendable (Request) async throws -> Response
    /// A request that also receives the call (its idempotency key, for the server).
    public typealias CallFetcher = @Sendable (Request, MutationCall) async throws -> Response

    /// The client whose queries the mutation invalidates, and whose mutation cache lists its calls.
    public let client: QueryClient
    /// The callbacks, retries, scope and network behaviour (over its key's defaults).
    public let options: MutationOptions<Request, Response>
    private let fetcher: MutationFetcher<Request, Response>
    /// The options as the calls take them, made once (a call whose key has defaults makes its own).
    private let plan: MutationCallPlan
    /// Names this mutation's calls in the mutation cache (unique in the client, unlike an object's address).
    private let owner: UInt64
    /// The latest call (nil before the first call and after `reset()`), which the state is a view of.
    private let latest = Locked<MutationCallRecord?>(nil)
    /// The state's view: derived from the latest call, published as every view is.
    private let view: DerivedView<Response>

    /// Makes a mutation.
    ///
    /// - Parameters:
    ///   - client: the cache whose queries it invalidates. Default `QueryClient.shared`.
    ///   - options: callbacks, retries, scope. Default: none, no retry, no scope, paused while offline.
    ///   - fetcher: performs the change on the server.
    @inlinable
    public convenience init(
        client: QueryClient = .shared,
        options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping Fetcher
    ) {
        self.init(client: client, options: options, fetcher: .request(fetcher), shows: Self.shows)
    }

    /// Makes a mutation whose fetcher also receives the call, with its idempotency key (stable across retries
    /// and restarts: send it to the server so that it can drop a duplicate).
    ///
    /// - Parameters: as `init(client:options:fetcher:)`.
    @inlinable
    public convenience init(
        client: QueryClient = .shared,
        options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping CallFetcher
    ) {
        self.init(client: client, options: options, fetcher: .call(fetcher), shows: Self.shows)
    }

    /// What the state shows of the latest call (nil: none), as the frame its view publishes: the view's snapshot
    /// maker. The public initialisers are inlinable and hand it over from the module that makes the mutation,
    /// where it is compiled for `Response`: made in Loft's generic code, the frames cost more than the rest of a
    /// call's publication (docs/Performance.md, row (o)).
    @inlinable
    static func shows(_ call: MutationCallStanding?) -> ViewFrame {
        MutationCallStanding.frame(of: call, as: Response.self)
    }

    @usableFromInline
    init(
        client: QueryClient, options: MutationOptions<Request, Response>, fetcher: MutationFetcher<Request, Response>,
        shows: @escaping @Sendable (MutationCallStanding?) -> ViewFrame
    ) {
        self.client = client
        self.options = options
        self.fetcher = fetcher
        plan = MutationCallPlan(options)
        owner = client.mutationCache.newOwner()
        view = DerivedView(showing: QuerySnapshot(key: mutationSnapshotKey, showing: .idle), client: client)
        view.derive(frames: { [latest] in shows(latest.withLock { $0 }?.standing) })
    }

    /// Makes a mutation whose request is a publisher (Pigeon's shape); its first value is the response.
    public convenience init(
        client: QueryClient = .shared,
        options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping @Sendable (Request) -> AnyPublisher<Response, any Error>
    ) {
        self.init(client: client, options: options) { (request: Request) in
            for try await value in fetcher(request).values { return value }
            throw QueryError.emptyResponse(key: "mutation")
        }
    }

    deinit {
        view.observer.close()
    }

    // MARK: - State

    /// The state of the latest call.
    public var state: QueryState<Response> {
        view.observer.trackedState
    }

    /// Every change of `state`, starting with the current one.
    public var statePublisher: AnyPublisher<QueryState<Response>, Never> {
        view.observer.statePublisher
    }

    /// Every response of a call that became the state, starting with the current one if there is one.
    public var valuePublisher: AnyPublisher<Response, Never> {
        view.observer.valuePublisher
    }

    /// The latest call as the client's mutation cache lists it (nil before the first call and after `reset()`;
    /// kept after the cache collected it).
    public var latestCall: MutationInfo? {
        latest.withLock { $0 }?.info
    }

    /// The latest call's status: `.idle` before the first call and after `reset()`.
    public var status: MutationStatus {
        latestCall?.status ?? .idle
    }

    /// The latest call's response, once it succeeded.
    public var data: Response? {
        latestCall?.response as? Response
    }

    /// The latest call's error, once it failed.
    public var error: (any Error)? {
        latestCall?.error
    }

    /// The latest call's request.
    public var request: Request? {
        latestCall?.request as? Request
    }

    /// The latest call's failed attempts so far (0 again once it succeeded).
    public var failureCount: Int {
        latestCall?.failureCount ?? 0
    }

    /// The error of the latest call's last failed attempt (nil once it succeeded).
    public var failureReason: (any Error)? {
        latestCall?.failureReason
    }

    /// Whether the latest call is pending but not running: waiting for its scope, or for the network.
    public var isPaused: Bool {
        latestCall?.isPaused ?? false
    }

    /// When the latest call was submitted, on the client's scheduler.
    public var submittedAt: SchedulerInstant? {
        latestCall?.submittedAt
    }

    // MARK: - Calls

    /// Runs the mutation in the background; `onSuccess` gets the response and an invalidator, after the
    /// options' `onSuccess` and before `onSettled`.
    ///
    /// Errors are in `state` (and go to `options.onError`); nothing is thrown here. A caller who wants the
    /// response awaits what it returns: `let user = try await rename.execute(with: request).response`.
    ///
    /// - Returns: the call, whose `response` can be awaited (see `StartedMutation`).
    @discardableResult
    public func execute(
        with request: Request,
        onSuccess: @escaping @Sendable (Response, QueryInvalidator) -> Void = { _, _ in }
    ) -> StartedMutation<Response> {
        StartedMutation(start(request, immediately: false, onSuccess: onSuccess).1)
    }

    /// Runs the mutation and returns the response.
    ///
    /// - Throws: the request's error once retries are exhausted (after `onError` and `onSettled` ran), the
    ///   first error a callback threw, or `MutationError.cancelled` when the call was cancelled (cancelling the
    ///   task awaiting `mutate` cancels the call).
    @discardableResult
    public func mutate(_ request: Request) async throws -> Response {
        let (record, task) = start(request, immediately: true, onSuccess: nil)
        let cache = client.mutationCache
        return try await withTaskCancellationHandler {
            try await StartedMutation<Response>(task).response
        } onCancel: {
            cache.cancel(record.id)
        }
    }

    /// Cancels every pending call of this mutation.
    public func cancel() {
        client.mutationCache.cancel(ownedBy: owner)
    }

    /// Puts the state back to `.idle`; calls still pending no longer change it.
    public func reset() {
        latest.withLock { $0 = nil }
        view.changed()
    }

    /// Sends again a call saved before a restart (`QueryClient.resumePausedMutations()`): its `onMutate` does
    /// not run again, and its other callbacks get a nil context.
    func resume(_ request: Request, _ entry: MutationJournal.Entry) {
        start(request, immediately: false, restoring: entry, onSuccess: nil)
    }

    /// Submits a call to the mutation cache and starts its task.
    @discardableResult
    private func start(
        _ request: Request, immediately: Bool, restoring entry: MutationJournal.Entry? = nil,
        onSuccess: (@Sendable (Response, QueryInvalidator) -> Void)?
    ) -> (MutationCallRecord, MutationTask) {
        let cache = client.mutationCache
        let key = entry?.record.mutationKey ?? plan.mutationKey
        let global = cache.callbacks
        var plan = self.plan
        if let key, let defaults = cache.defaultOptions(for: key, as: MutationOptions<Request, Response>.self) {
            plan = MutationCallPlan(options.merged(over: defaults))
        }
        let hasExecuteOnSuccess = onSuccess != nil
        let scope = entry.map { $0.record.scope } ?? plan.scope
        let mayJournal = cache.journal.mayWrite(mutationKey: key, request: request)
        let (record, first) = cache.submit(
            request: request, mutationKey: key, scope: scope, meta: entry?.record.meta ?? plan.meta,
            restoring: entry, owner: owner, onChange: { [weak view] in view?.changed() }
        ) { id in
            MutationCallStateMachine.flags(
                id: id, plan: plan, scope: scope, global: global, hasExecuteOnSuccess: hasExecuteOnSuccess,
                isRestored: entry != nil, mayJournal: mayJournal)
        }
        latest.withLock { $0 = record }
        view.changed()
        // The request bound to the fetcher, as the retryer sends it once per attempt.
        let send: @Sendable () async throws -> any Sendable
        switch fetcher {
        case .request(let fetcher): send = { try await fetcher(request) }
        case .call(let fetcher):
            let call = MutationCall(id: record.id, key: record.key)
            send = { try await fetcher(request, call) }
        }
        var erasedOnSuccess: (@Sendable (any Sendable, QueryInvalidator) -> Void)?
        if let onSuccess {
            erasedOnSuccess = { response, invalidate in
                if let response = response as? Response { onSuccess(response, invalidate) }
            }
        }
        let run = MutationRun(
            record: record, first: first, plan: plan, request: request, send: send, client: client, global: global,
            onSuccess: erasedOnSuccess)
        let task = client.context.tracker.spawn(immediately: immediately, run)
        cache.attach(task, to: record)
        return (record, task)
    }

}

extension Mutation: ObservableQueryState {}

/// A mutation's fetcher as it was given: with the request alone, or with the call too.
@usableFromInline
enum MutationFetcher<Request: Sendable, Response: Sendable>: Sendable {
    case request(Mutation<Request, Response>.Fetcher)
    case call(Mutation<Request, Response>.CallFetcher)
}

/// The key of a mutation's snapshots (a mutation has no cache entry).
@usableFromInline
let mutationSnapshotKey: QueryKey = "mutation"
