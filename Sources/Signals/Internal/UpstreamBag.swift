/// The upstream tokens of an operator with several sources, by id; cancelling the bag cancels them all.
///
/// A token added after the bag was cancelled is cancelled at once.
package final class UpstreamBag: Sendable {
    private struct State: Sendable {
        var tokens: [Int: Subscription] = [:]
        var isCancelled = false
    }

    private let state = Locked(State())

    package init() {}

    package func add(_ token: Subscription, id: Int) {
        let kept = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.tokens[id] = token
            return true
        }
        if !kept { token.cancel() }
    }

    /// Cancels and forgets the token with `id`.
    package func cancel(id: Int) {
        state.withLock { $0.tokens.removeValue(forKey: id) }?.cancel()
    }

    /// Forgets the token with `id` without cancelling it (its source completed).
    package func remove(id: Int) {
        _ = state.withLock { $0.tokens.removeValue(forKey: id) }
    }

    package func cancelAll() {
        let tokens = state.withLock { state -> [Subscription] in
            state.isCancelled = true
            defer { state.tokens = [:] }
            return Array(state.tokens.values)
        }
        for token in tokens { token.cancel() }
    }
}
