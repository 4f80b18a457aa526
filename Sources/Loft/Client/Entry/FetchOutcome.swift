/// The result of one fetch that a caller started without waiting (`refetch(request:)`, a page load), kept for
/// whoever awaits it later: the entry answers it as it answers any waiter, and it holds the answer until it is
/// read, however late.
///
/// **Behavior**
/// - Answered once; later answers are ignored.
/// - Any number of tasks may await it, before or after the answer; each gets the same result.
/// - A task cancelled while it waits gets `CancellationError`; the fetch goes on, and others still get its
///   result.
final class FetchOutcome: Sendable {
    private struct State: Sendable {
        var result: Result<any Sendable, any Error>?
        var waiting: [UInt64: CheckedContinuation<Result<any Sendable, any Error>, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Records the answer and wakes every task waiting for it.
    func resolve(_ result: Result<any Sendable, any Error>) {
        let waiting = state.withLock { state -> [CheckedContinuation<Result<any Sendable, any Error>, Never>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(returning: result) }
    }

    /// The answer, once there is one.
    var result: Result<any Sendable, any Error> {
        get async {
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                return state.nextID
            }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let known = state.withLock { state -> Result<any Sendable, any Error>? in
                        if let result = state.result { return result }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiting[id] = continuation
                        return nil
                    }
                    if let known { continuation.resume(returning: known) }
                }
            } onCancel: {
                let continuation = state.withLock { $0.waiting.removeValue(forKey: id) }
                continuation?.resume(returning: .failure(CancellationError()))
            }
        }
    }
}
