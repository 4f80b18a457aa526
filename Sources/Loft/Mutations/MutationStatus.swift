/// Where one call of a mutation stands (TanStack's mutation status).
public enum MutationStatus: String, Sendable, Hashable, CaseIterable {
    /// Not submitted yet.
    case idle
    /// Submitted and not settled: running, waiting for its scope, or paused offline (`MutationInfo.isPaused`).
    case pending
    /// The request succeeded and every callback ran.
    case success
    /// The request (or a callback) failed, or the call was cancelled.
    case error
}
