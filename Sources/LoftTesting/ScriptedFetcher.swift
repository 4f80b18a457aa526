/// A fetcher whose answers a test scripts, one step per call: answer, fail, or hang until released.
///
/// ```swift
/// let fetcher = ScriptedFetcher<Int, String>(.answer("ada"), .fail(APIError.offline), .hang())
/// let query = Query(key: "user", client: client, fetcher: fetcher.fetch)
/// ```
///
/// **Behavior**
/// - Call n plays step n; once the script is exhausted, the last step repeats.
/// - A hanging call waits until `release(with:)`; it ends with `CancellationError` when its task is
///   cancelled, unless the step says it ignores cancellation (a fetcher that does not react to it).
/// - `callCount` and `requests` record every call; `waitForCalls(_:)` waits without sleeping.
public final class ScriptedFetcher<Request: Sendable, Response: Sendable>: Sendable {
    /// What one call does.
    public enum Step: Sendable {
        /// Returns the value at once.
        case answer(Response)
        /// Throws the error at once.
        case fail(any Error)
        /// Waits until `release(with:)`; when `ignoresCancellation`, a cancelled task still waits.
        case hang(ignoresCancellation: Bool = false)
    }

    private struct Hanging: Sendable {
        let id: Int
        let continuation: CheckedContinuation<Response, any Error>
        let ignoresCancellation: Bool
    }

    private struct State: Sendable {
        var steps: [Step]
        var requests: [Request] = []
        var hanging: [Hanging] = []
        var callWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Locked<State>

    /// Makes a fetcher that plays `steps` in order (the last one repeats).
    public init(_ steps: Step...) {
        state = Locked(State(steps: steps.isEmpty ? [.hang()] : steps))
    }

    /// How many times the fetcher was called.
    public var callCount: Int {
        state.withLock { $0.requests.count }
    }

    /// The request of every call, in order.
    public var requests: [Request] {
        state.withLock { $0.requests }
    }

    /// How many calls are hanging now.
    public var hangingCount: Int {
        state.withLock { $0.hanging.count }
    }

    /// Replaces the steps still to play.
    public func script(_ steps: Step...) {
        state.withLock { state in
            state.steps = Array(state.steps.prefix(state.requests.count)) + steps
        }
    }

    /// The fetcher: pass `fetcher.fetch` where a fetcher is expected.
    @Sendable
    public func fetch(_ request: Request) async throws -> Response {
        let (step, index) = state.withLock { state in
            state.requests.append(request)
            let index = state.requests.count - 1
            return (state.steps[min(index, state.steps.count - 1)], index)
        }
        switch step {
        case .answer(let value):
            resumeCallWaiters()
            return value
        case .fail(let error):
            resumeCallWaiters()
            throw error
        case .hang(let ignoresCancellation):
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    state.withLock {
                        $0.hanging.append(
                            Hanging(id: index, continuation: continuation, ignoresCancellation: ignoresCancellation))
                    }
                    // Only now is the call waiting: a test that saw `waitForCalls` return can release it.
                    resumeCallWaiters()
                    // Cancelled before it parked: the cancellation handler found nothing to end, so end it here.
                    if Task.isCancelled, !ignoresCancellation, let parked = unpark(index) {
                        parked.continuation.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                unpark(index)?.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Removes the parked call `index`, unless it ignores cancellation.
    private func unpark(_ index: Int) -> Hanging? {
        state.withLock { state in
            guard let position = state.hanging.firstIndex(where: { $0.id == index }),
                !state.hanging[position].ignoresCancellation
            else { return nil }
            return state.hanging.remove(at: position)
        }
    }

    private func resumeCallWaiters() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let calls = state.requests.count
            defer { state.callWaiters.removeAll { $0.count <= calls } }
            return state.callWaiters.filter { $0.count <= calls }.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Ends every hanging call with `result`.
    public func release(with result: Result<Response, any Error>) {
        let hanging = state.withLock { state in
            defer { state.hanging = [] }
            return state.hanging
        }
        for call in hanging { call.continuation.resume(with: result) }
    }

    /// Ends every hanging call with `value`.
    public func release(returning value: Response) {
        release(with: .success(value))
    }

    /// Returns once the fetcher has been called at least `count` times (and, for hanging steps, once those
    /// calls are waiting).
    public func waitForCalls(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isReached = state.withLock { state -> Bool in
                guard state.requests.count < count else { return true }
                state.callWaiters.append((count, continuation))
                return false
            }
            if isReached { continuation.resume() }
        }
    }
}
