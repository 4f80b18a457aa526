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
///   submission until `gcTime` after it settled, with its events on `QueryClient.events`.
/// - `state` is `.idle` until the first call, `.loading` while a call is pending (running, waiting for its
///   scope, or paused offline: `isPaused`), then `.succeed(response)` or `.failed(error)` once every
///   callback ran (see `MutationOptions` for their order and for throwing callbacks). With calls that overlap,
///   the state follows the latest call.
/// - Calls with the same `scope` run one at a time in submission order; a failed or cancelled call lets the
///   next one run.
/// - With `networkMode .online` (the default) a call submitted offline waits, paused, for the network.
/// - Retries (`retry`, default none) wait on the client's scheduler, through the retryer queries use.
/// - `cancel()`, `QueryClient.cancelMutations(matching:)` or cancelling the task awaiting `mutate` cancels a
///   pending call: its task is cancelled, `onError` and `onSettled` run with `MutationError.cancelled`.
/// - Observable; a mutation nobody references is freed once its pending calls end.
public final class Mutation<Request: Sendable, Response: Sendable>: Sendable {
    /// The request of a mutation: its input in, the server's response out.
    public typealias Fetcher = @Sendable (Request) async throws -> Response
    /// A request that also receives the call (its idempotency key, for the server).
    public typealias CallFetcher = @Sendable (Request, MutationCall) async throws -> Response

    /// The latest call, its state, and the calls still pending.
    private struct Calls: Sendable {
        var latest: UInt64 = 0
        var state: QueryState<Response> = .idle
        var pending: Set<UInt64> = []
    }

    /// The client whose queries the mutation invalidates, and whose mutation cache lists its calls.
    public let client: QueryClient
    /// The callbacks, retries, scope and network behaviour.
    public let options: MutationOptions<Request, Response>
    private let fetcher: CallFetcher
    private let calls = Locked(Calls())
    private let view: DerivedView<Response>

    /// Makes a mutation.
    ///
    /// - Parameters:
    ///   - client: the cache whose queries it invalidates. Default `QueryClient.shared`.
    ///   - options: callbacks, retries, scope. Default: none, no retry, no scope, paused while offline.
    ///   - fetcher: performs the change on the server.
    public convenience init(
        client: QueryClient = .shared,
        options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping Fetcher
    ) {
        self.init(client: client, options: options) { request, _ in try await fetcher(request) }
    }

    /// Makes a mutation whose fetcher also receives the call, with its idempotency key (stable across retries
    /// and restarts: send it to the server so that it can drop a duplicate).
    ///
    /// - Parameters: as `init(client:options:fetcher:)`.
    public init(
        client: QueryClient = .shared,
        options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping CallFetcher
    ) {
        self.client = client
        self.options = options
        self.fetcher = fetcher
        view = DerivedView(showing: QuerySnapshot(key: Self.key, showing: .idle), client: client)
        view.derive { [calls] in QuerySnapshot(key: Self.key, showing: calls.withLock { $0.state }) }
    }

    deinit {
        view.observer.close()
    }

    /// The key of a mutation's snapshots (a mutation has no cache entry).
    private static var key: QueryKey { "mutation" }

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

    /// The latest call as the client's mutation cache lists it (nil before the first call, after `reset()`,
    /// or once the call was removed `gcTime` after it settled).
    public var latestCall: MutationInfo? {
        let latest = calls.withLock { $0.latest }
        return latest == 0 ? nil : client.mutationCache.info(latest)
    }

    /// Whether the latest call is pending but not running: waiting for its scope, or for the network.
    public var isPaused: Bool {
        latestCall.map { $0.status == .pending && $0.isPaused } ?? false
    }

    /// Runs the mutation in the background; `onSuccess` gets the response and an invalidator, after the
    /// options' `onSuccess` and before `onSettled`.
    ///
    /// Errors are in `state` (and go to `options.onError`); nothing is thrown.
    public func execute(
        with request: Request,
        onSuccess: @escaping @Sendable (Response, QueryInvalidator) -> Void = { _, _ in }
    ) {
        start(request, onSuccess: onSuccess, completion: nil)
    }

    /// Runs the mutation and returns the response.
    ///
    /// - Throws: the request's error once retries are exhausted (after `onError` and `onSettled` ran), the
    ///   first error a callback threw, or `MutationError.cancelled` when the call was cancelled (cancelling the
    ///   task awaiting `mutate` cancels the call).
    @discardableResult
    public func mutate(_ request: Request) async throws -> Response {
        let call = Locked<(id: UInt64?, isCancelled: Bool)>((nil, false))
        let cache = client.mutationCache
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let id = start(request, onSuccess: nil) { continuation.resume(with: $0) }
                let isCancelled = call.withLock { call -> Bool in
                    call.id = id
                    return call.isCancelled
                }
                if isCancelled { cache.cancel(id) }
            }
        } onCancel: {
            let id = call.withLock { call -> UInt64? in
                call.isCancelled = true
                return call.id
            }
            if let id { cache.cancel(id) }
        }
    }

    /// Cancels every pending call of this mutation.
    public func cancel() {
        let pending = calls.withLock { $0.pending }
        for id in pending.sorted() { client.mutationCache.cancel(id) }
    }

    /// Puts the state back to `.idle`; calls still pending no longer change it.
    public func reset() {
        calls.withLock { calls in
            calls.latest = 0
            calls.state = .idle
        }
        view.changed()
    }

    /// Sends again a call saved before a restart (`QueryClient.resumePausedMutations()`): its `onMutate` does
    /// not run again, and its other callbacks get no context.
    func resume(_ request: Request, _ record: MutationRecord) {
        start(request, restoring: record, onSuccess: nil, completion: nil)
    }

    /// Submits a call and starts its task; returns the call's id.
    @discardableResult
    private func start(
        _ request: Request, restoring record: MutationRecord? = nil,
        onSuccess: (@Sendable (Response, QueryInvalidator) -> Void)?,
        completion: (@Sendable (Result<Response, any Error>) -> Void)?
    ) -> UInt64 {
        let cache = client.mutationCache
        let id = cache.submit(
            request: request, mutationKey: record?.mutationKey ?? options.mutationKey,
            scope: record.map(\.scope) ?? options.scope, gcTime: options.gcTime, meta: record?.meta ?? options.meta,
            restoring: record)
        calls.withLock { calls in
            calls.latest = id
            calls.state = .loading
            calls.pending.insert(id)
        }
        view.changed()
        let task = client.context.tracker.spawn { [self] in
            let run = MutationRun(id: id, request: request, isRestored: record != nil, mutation: self)
            let result = await run.perform(onSuccess)
            let isLatest = calls.withLock { calls -> Bool in
                calls.pending.remove(id)
                guard calls.latest == id else { return false }
                switch result {
                case .success(let response): calls.state = .succeed(response)
                case .failure(let error): calls.state = .failed(error)
                }
                return true
            }
            if isLatest { view.changed() }
            completion?(result)
        }
        cache.attach(task, to: id)
        return id
    }

    /// What one call runs: the fetcher through the client's retryer.
    func send(_ request: Request, _ call: MutationCall, hooks: Retryer.Hooks) async -> Retryer.Outcome<Response> {
        let retryer = Retryer(
            policy: options.retry, networkMode: options.networkMode, pausesWhenUnfocused: false,
            context: client.context)
        let fetcher = fetcher
        return await retryer.run(hooks) { try await fetcher(request, call) }
    }
}

extension Mutation: ObservableQueryState {}
