/// A change on the server (create, update, delete), with its state and the refresh of the queries it
/// affects.
///
/// ```swift
/// let createUser = Mutation<NewUser, User>(client: client) { new in try await api.create(new) }
/// createUser.execute(with: NewUser(name: "ada")) { user, invalidator in
///     invalidator.invalidate("users", .lastData)
/// }
/// ```
///
/// **Behavior**
/// - `state` is `.idle` until the first call, `.loading` while the request runs, then `.succeed(response)`
///   or `.failed(error)`; with calls that overlap, the state follows the latest call.
/// - The callbacks run in order: `onMutate`, the request (with `retry`), `onSuccess` or `onError` (options
///   first, then the `execute` closure), `onSettled`.
/// - Retries wait on the client's scheduler. `QueryClient.isMutating()` counts running mutations.
/// - Observable; a mutation nobody references is freed once its running calls end.
public final class Mutation<Request: Sendable, Response: Sendable>: Sendable {
    /// The request of a mutation: its input in, the server's response out.
    public typealias Fetcher = @Sendable (Request) async throws -> Response

    /// The client whose queries the mutation invalidates.
    public let client: QueryClient
    /// The callbacks and retries.
    public let options: MutationOptions<Request, Response>
    private let fetcher: Fetcher
    /// The latest call's number, and its state.
    private let latest = Locked<(call: UInt64, state: QueryState<Response>)>((0, .idle))
    private let view: DerivedView<Response>

    /// Makes a mutation.
    ///
    /// - Parameters:
    ///   - client: the cache whose queries it invalidates. Default `QueryClient.shared`.
    ///   - options: callbacks and retries. Default: none, no retry.
    ///   - fetcher: performs the change on the server.
    public init(
        client: QueryClient = .shared,
        options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping Fetcher
    ) {
        self.client = client
        self.options = options
        self.fetcher = fetcher
        view = DerivedView(showing: QuerySnapshot(key: Self.key, showing: .idle), client: client)
        view.derive { [latest] in QuerySnapshot(key: Self.key, showing: latest.withLock { $0.state }) }
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
        self.init(client: client, options: options) { request in
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

    /// Runs the mutation in the background; `onSuccess` gets the response and an invalidator.
    ///
    /// Errors are in `state` (and go to `options.onError`); nothing is thrown.
    public func execute(
        with request: Request,
        onSuccess: @escaping @Sendable (Response, QueryInvalidator) -> Void = { _, _ in }
    ) {
        client.context.tracker.spawn { [self] in
            _ = try? await run(request, onSuccess: onSuccess)
        }
    }

    /// Runs the mutation and returns the response.
    ///
    /// - Throws: the request's error once retries are exhausted (after `onError` and `onSettled` ran), or
    ///   `CancellationError` when the calling task is cancelled.
    @discardableResult
    public func mutate(_ request: Request) async throws -> Response {
        try await run(request, onSuccess: nil)
    }

    /// Puts the state back to `.idle`.
    public func reset() {
        latest.withLock { $0 = ($0.call + 1, .idle) }
        view.changed()
    }

    private func run(
        _ request: Request, onSuccess: (@Sendable (Response, QueryInvalidator) -> Void)?
    ) async throws -> Response {
        let call = latest.withLock { latest in
            latest.call += 1
            return latest.call
        }
        client.mutationStarted()
        defer { client.mutationEnded() }
        publish(.loading, ifLatest: call)
        let context = await options.onMutate?(request)
        do {
            let response = try await attempt(request)
            publish(.succeed(response), ifLatest: call)
            await options.onSuccess?(response, request, context)
            onSuccess?(response, QueryInvalidator(client: client))
            await options.onSettled?(response, nil, request, context)
            return response
        } catch {
            publish(.failed(error), ifLatest: call)
            await options.onError?(error, request, context)
            await options.onSettled?(nil, error, request, context)
            throw error
        }
    }

    /// One call through the client's retryer (the one queries use): back-off on the client's timer queue.
    /// Mutations run whatever the network and the focus until offline mutations exist.
    private func attempt(_ request: Request) async throws -> Response {
        let retryer = Retryer(
            policy: options.retry, networkMode: .always, pausesWhenUnfocused: false, context: client.context)
        let fetcher = fetcher
        switch await retryer.run(Retryer.Hooks(), { try await fetcher(request) }) {
        case .success(let response):
            return response
        case .failure(let error, _):
            throw error
        case .cancelled:
            throw CancellationError()
        }
    }

    /// Makes `state` the mutation's, unless a later call (or a reset) came since `call`.
    private func publish(_ state: QueryState<Response>, ifLatest call: UInt64) {
        let isLatest = latest.withLock { latest -> Bool in
            guard latest.call == call else { return false }
            latest.state = state
            return true
        }
        if isLatest { view.changed() }
    }
}

extension Mutation: ObservableQueryState {}
