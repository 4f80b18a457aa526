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
/// - `mutate` starts its call on the thread of the task that awaits it, where it runs until it first suspends
///   (`Task.immediate`, on Linux and on Apple systems of 2025 on; a task of its own before them): a call whose
///   fetcher answers at once ends without waking another thread. `execute` starts its call in a task of its
///   own, so that it returns at once.
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

    /// The client whose queries the mutation invalidates, and whose mutation cache lists its calls.
    public let client: QueryClient
    /// The callbacks, retries, scope and network behaviour.
    public let options: MutationOptions<Request, Response>
    /// Binds a request to the fetcher (see `sender(_:)`).
    private let send: Sender
    /// Makes the boxes a successful call shows (see `successBoxes(_:)`).
    private let succeeded: SuccessBoxes
    /// The options erased, for the calls' runs.
    private let steps: MutationSteps
    private let calls: Locked<LatestCall>
    /// What the state's readers and subscribers follow, and the channel the calls' changes are published on.
    private let observer: ViewObserver<Response>
    private let channel: ViewChannel<Response>
    /// The two states most changes are to, made once (and kept without their type, which showing them then
    /// does not look up).
    private let idle: MutationShowing
    private let loading: MutationShowing
    /// Publishes the latest state, one publication at a time.
    private let publications = CoalescedRun()
    /// How long a settled call stays listed (`options.gcTime`), in nanoseconds: converted once, not per call.
    private let keptFor: Int64?

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
        self.init(client: client, options: options, send: Self.sender(.request(fetcher)), succeeded: Self.successBoxes)
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
        self.init(client: client, options: options, send: Self.sender(.call(fetcher)), succeeded: Self.successBoxes)
    }

    /// Binds a request and its call to the fetcher: the closure a call's run sends once per attempt.
    @usableFromInline
    typealias Sender = @Sendable (Request, MutationCall) -> @Sendable () async throws -> MutationResponse

    /// The fetcher bound to a request, its response boxed as it returns. The public initialisers are inlinable
    /// and hand this over from the module that makes the mutation, where it runs specialised for `Response`:
    /// the box is made without looking its type up, and nothing casts the erased response back.
    @inlinable
    static func sender(_ fetcher: MutationFetcher<Request, Response>) -> Sender {
        switch fetcher {
        case .request(let fetcher):
            return { request, _ in { MutationResponse(try await fetcher(request)) } }
        case .call(let fetcher):
            return { request, call in { MutationResponse(try await fetcher(request, call)) } }
        }
    }

    /// What a successful call shows, given the box of its response (a `ValueBox<Response>`): the state's box
    /// and the value's box.
    @usableFromInline
    typealias SuccessBoxes =
        @Sendable (_ response: AnyObject & Sendable) -> (box: AnyObject & Sendable, value: AnyObject & Sendable)

    /// The boxes a successful call shows. Handed over like `sender(_:)`, and for the same reason: in Loft's
    /// generic code, making the state's box looked types up at run time on every call.
    @inlinable
    static func successBoxes(
        _ response: AnyObject & Sendable
    ) -> (box: AnyObject & Sendable, value: AnyObject & Sendable) {
        // A call's box is always the `ValueBox<Response>` its sender made.
        let value = unsafeDowncast(response, to: ValueBox<Response>.self)
        return (SnapshotBox(key: mutationSnapshotKey, showing: .succeed(value.value)), value)
    }

    @usableFromInline
    init(
        client: QueryClient, options: MutationOptions<Request, Response>, send: @escaping Sender,
        succeeded: @escaping SuccessBoxes
    ) {
        self.client = client
        self.options = options
        self.send = send
        self.succeeded = succeeded
        steps = options.steps
        keptFor = if case .duration(let duration) = options.gcTime { duration.nanoseconds } else { nil }
        // Made once: most changes are to these two.
        let idle = SnapshotBox<Response>(key: mutationSnapshotKey, showing: .idle)
        self.idle = MutationShowing(.idle, box: idle)
        loading = MutationShowing(.loading, box: SnapshotBox<Response>(key: mutationSnapshotKey, showing: .loading))
        calls = Locked(LatestCall(showing: self.idle))
        channel = ViewChannel(idle, client: client)
        observer = ViewObserver(showing: idle)
        observer.follow(channel)
    }

    /// What a settled call's state shows.
    private func showing(_ outcome: Result<MutationResponse, any Error>) -> MutationShowing {
        switch outcome {
        case .failure(let error):
            return Self.showing(error)
        case .success(let response):
            let (box, value) = succeeded(response.box)
            return MutationShowing(.succeeded, box: box, value: value)
        }
    }

    /// A failure's state, apart: unspecialised generic code looks every type it uses up on entry, and a
    /// success uses no `QueryState<Response>` of its own.
    @inline(never)
    private static func showing(_ error: any Error) -> MutationShowing {
        MutationShowing(.failed, box: SnapshotBox<Response>(key: mutationSnapshotKey, showing: .failed(error)))
    }

    /// Whether two settled states' boxes show the same state: apart from `show(_:)`, whose common cases then
    /// look up no type.
    @inline(never)
    private static func showSame(_ last: AnyObject & Sendable, _ next: AnyObject & Sendable) -> Bool {
        let (last, next) = (
            unsafeDowncast(last, to: SnapshotBox<Response>.self), unsafeDowncast(next, to: SnapshotBox<Response>.self)
        )
        return last.state.isSame(as: next.state)
    }

    /// Changes the latest call's state with `change` (true when it changed it), then publishes it, unless it
    /// was published: one publication at a time, the last one after the last change. What to send is worked
    /// out under the lock, on the states where they are kept (copying the two out, as an optional pair, cost
    /// more than the rest of the publication's own work); when no publication is running, under the same hold
    /// of the lock as the change.
    private func show(_ change: (inout LatestCall) -> Bool) {
        guard publications.begin() else {
            // Another thread publishes: changed first, so that its next pass sends the change.
            guard calls.withLock(change) else { return }
            publications.run(publishUnpublished)
            return
        }
        publish(
            calls.withLock { calls in
                change(&calls) ? Self.unpublished(&calls) : ViewSends(box: calls.shown.box, stateChanged: false)
            })
        while !publications.finish() { publishUnpublished() }
    }

    /// A pass of the publications after the first: sends the state shown, if it was not sent.
    private func publishUnpublished() {
        publish(calls.withLock(Self.unpublished))
    }

    /// Sends `sends` to the observers, unless it changes nothing.
    @inline(__always)
    private func publish(_ sends: ViewSends) {
        if sends.stateChanged || sends.valueChanged { channel.publish(sends) }
    }

    /// What to send for the state shown (nothing, when it was sent); marks it sent.
    @inline(__always)
    private static func unpublished(_ calls: inout LatestCall) -> ViewSends {
        guard calls.shown.box !== calls.published.box else {
            return ViewSends(box: calls.shown.box, stateChanged: false)
        }
        defer { calls.published = calls.shown }
        return Self.sends(from: calls.published, to: calls.shown)
    }

    /// What a change from the state `last` published to `next` sends.
    private static func sends(from last: borrowing MutationShowing, to next: borrowing MutationShowing) -> ViewSends {
        var sends = ViewSends(box: next.box, stateChanged: true, value: next.value)
        if last.kind == next.kind, last.kind == .succeeded || last.kind == .failed {
            // Two settled states in a row (the pending one between them was never published).
            sends.stateChanged = !showSame(last.box, next.box)
        }
        // A success after another one with the same response shows no new value.
        sends.valueChanged = next.value == nil ? last.value != nil : sends.stateChanged || last.kind != .succeeded
        return sends
    }

    deinit {
        observer.close()
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

    /// The state of the latest call.
    public var state: QueryState<Response> {
        observer.trackedState
    }

    /// Every change of `state`, starting with the current one.
    public var statePublisher: AnyPublisher<QueryState<Response>, Never> {
        observer.statePublisher
    }

    /// Every response of a call that became the state, starting with the current one if there is one.
    public var valuePublisher: AnyPublisher<Response, Never> {
        observer.valuePublisher
    }

    /// The latest call as the client's mutation cache lists it (nil before the first call, after `reset()`,
    /// or once the call was removed `gcTime` after it settled).
    public var latestCall: MutationInfo? {
        let latest = calls.withLock { $0.latest }
        return latest == 0 ? nil : client.mutationCache.listing(latest)?.info
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
        start(request, onSuccess: onSuccess)
    }

    /// Runs the mutation and returns the response.
    ///
    /// - Throws: the request's error once retries are exhausted (after `onError` and `onSettled` ran), the
    ///   first error a callback threw, or `MutationError.cancelled` when the call was cancelled (cancelling the
    ///   task awaiting `mutate` cancels the call).
    @discardableResult
    public func mutate(_ request: Request) async throws -> Response {
        // The call starts on this thread, which awaits it next (an immediate fetcher's call ends before it
        // is awaited).
        let (id, task, isPending) = start(request, immediately: true, onSuccess: nil)
        let outcome: Result<MutationResponse, any Error>
        if isPending {
            let cache = client.mutationCache
            outcome = await withTaskCancellationHandler {
                await Self.outcome(of: task)
            } onCancel: {
                cache.cancel(id)
            }
        } else {
            // Settled already: nothing is left to cancel.
            outcome = await Self.outcome(of: task)
        }
        switch outcome {
        case .success(let response):
            // A success's box is the `ValueBox<Response>` its sender made.
            return unsafeDowncast(response.box, to: ValueBox<Response>.self).value
        case .failure(let error):
            throw error
        }
    }

    /// The outcome a call's task returns (its work never throws: see `TrackedTask`).
    @inline(__always)
    private static func outcome(
        of task: TrackedTask<Result<MutationResponse, any Error>>
    ) async -> Result<MutationResponse, any Error> {
        do {
            return try await task.value
        } catch {
            return .failure(error)
        }
    }

    /// Cancels every pending call of this mutation.
    public func cancel() {
        let pending = calls.withLock { $0.pending.ids }
        for id in pending { client.mutationCache.cancel(id) }
    }

    /// Puts the state back to `.idle`; calls still pending no longer change it.
    public func reset() {
        show { calls in
            calls.latest = 0
            calls.shown = idle
            return true
        }
    }

    /// Sends again a call saved before a restart (`QueryClient.resumePausedMutations()`): its `onMutate` does
    /// not run again, and its other callbacks get no context.
    func resume(_ request: Request, _ record: MutationRecord) {
        let call = client.mutationCache.submit(request: request, restoring: record, keptFor: keptFor)
        startTask(of: call, request, isRestored: true, immediately: false, onSuccess: nil)
    }

    /// A started call: its id, its task, whose value is the call's outcome, and whether the call was still
    /// pending when its task was handed to the mutation cache.
    private typealias StartedCall = (
        id: UInt64, task: TrackedTask<Result<MutationResponse, any Error>>, isPending: Bool
    )

    /// Submits a new call and starts its task.
    @discardableResult
    private func start(
        _ request: Request, immediately: Bool = false, onSuccess: (@Sendable (Response, QueryInvalidator) -> Void)?
    ) -> StartedCall {
        let call = client.mutationCache.submit(
            request: request, mutationKey: options.mutationKey, scope: options.scope, keptFor: keptFor,
            meta: options.meta)
        return startTask(of: call, request, isRestored: false, immediately: immediately, onSuccess: onSuccess)
    }

    /// Starts the task of a submitted call.
    @discardableResult
    private func startTask(
        of submitted: MutationSubmission, _ request: Request, isRestored: Bool, immediately: Bool,
        onSuccess: (@Sendable (Response, QueryInvalidator) -> Void)?
    ) -> StartedCall {
        let id = submitted.id
        show { calls in
            calls.latest = id
            calls.shown = loading
            calls.pending.add(id)
            return true
        }
        var erasedOnSuccess: (@Sendable (AnyObject & Sendable, QueryInvalidator) -> Void)?
        if let onSuccess {
            erasedOnSuccess = { response, invalidate in
                onSuccess(unsafeDowncast(response, to: ValueBox<Response>.self).value, invalidate)
            }
        }
        let run = MutationRun(
            call: submitted, isRestored: isRestored, client: client, owner: self, steps: steps,
            send: send(request, MutationCall(id: id, key: submitted.key)),
            onSuccess: erasedOnSuccess)
        let task = client.context.tracker.spawn(immediately: immediately, run)
        // A call that ended already has nothing to cancel: its task is not handed to the mutation cache.
        let isPending = !run.hasEnded && client.mutationCache.attach(task, to: id)
        return (id, task, isPending)
    }

    /// Shows a settled call's state if it is still the latest call.
    func callSettled(_ id: UInt64, _ outcome: Result<MutationResponse, any Error>) {
        let settled = showing(outcome)
        show { calls in
            calls.pending.settle(id)
            guard calls.latest == id else { return false }
            calls.shown = settled
            return true
        }
    }
}

extension Mutation: ObservableQueryState {}

extension Mutation: MutationCallOwner {}

/// The key of a mutation's snapshots (a mutation has no cache entry).
@usableFromInline
let mutationSnapshotKey: QueryKey = "mutation"

/// A mutation's latest call, the state it shows, and the calls still pending: not generic (the boxes are kept
/// as objects), so that taking its lock looks no type up.
private struct LatestCall: Sendable {
    var latest: UInt64 = 0
    var pending = PendingCalls()
    /// What the latest call's state shows.
    var shown: MutationShowing
    /// What the observers were last sent (by the one publication running).
    var published: MutationShowing

    init(showing idle: MutationShowing) {
        shown = idle
        published = idle
    }
}

/// A mutation's state as its view publishes it, without its type: which state it is, its box, and the box of
/// its value when it succeeded.
private struct MutationShowing: Sendable {
    enum Kind: Sendable { case idle, loading, failed, succeeded }

    let kind: Kind
    /// A `SnapshotBox<Response>`.
    let box: AnyObject & Sendable
    /// A `ValueBox<Response>`, for a success.
    let value: (AnyObject & Sendable)?

    init(_ kind: Kind, box: AnyObject & Sendable, value: (AnyObject & Sendable)? = nil) {
        self.kind = kind
        self.box = box
        self.value = value
    }
}

/// A mutation's fetcher as it was given: with the request alone, or with the call too.
@usableFromInline
enum MutationFetcher<Request: Sendable, Response: Sendable>: Sendable {
    case request(Mutation<Request, Response>.Fetcher)
    case call(Mutation<Request, Response>.CallFetcher)
}
