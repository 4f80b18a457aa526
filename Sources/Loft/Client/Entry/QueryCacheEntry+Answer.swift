extension QueryCacheEntry {
    #if DEBUG
        /// A waiting task's continuation: checked in debug builds (the tests), so that a waiter resumed twice or
        /// never stops them.
        typealias WaiterContinuation = CheckedContinuation<any Sendable, any Error>
    #else
        /// A waiting task's continuation: unchecked in release builds, where a checked one cost each waiting
        /// caller about 5,000 instructions (row (e)). The machine answers each waiter once: its continuation is
        /// taken out of `continuations` under the lock before it is resumed.
        typealias WaiterContinuation = UnsafeContinuation<any Sendable, any Error>
    #endif

    /// How a waiter is answered: it resumes a waiting task, or it is kept for a caller who awaits it later.
    enum Answer: Sendable {
        case task(WaiterContinuation)
        case outcome(FetchOutcome)

        func give(_ result: Result<any Sendable, any Error>) {
            switch self {
            case .task(let continuation): continuation.resume(with: result)
            case .outcome(let outcome): outcome.resolve(result)
            }
        }
    }

    /// Suspends the calling task with a `WaiterContinuation` that `body` registers.
    static func withWaiterContinuation(
        _ body: (WaiterContinuation) -> Void
    ) async throws -> any Sendable {
        #if DEBUG
            try await withCheckedThrowingContinuation(body)
        #else
            try await withUnsafeThrowingContinuation(body)
        #endif
    }
}
