extension QueryClient {
    /// How many mutation calls of this client `filter` lets through are pending (running, waiting for their
    /// scope, or paused offline). Default: every call.
    public func isMutating(matching filter: MutationFilter = .all) -> Int {
        mutationCache.infos(matching: filter).count { $0.status == .pending }
    }

    /// The mutation calls `filter` lets through, in submission order: pending ones, and settled ones until
    /// their `gcTime` ran out. Default: every call.
    public func mutations(matching filter: MutationFilter = .all) -> [MutationInfo] {
        mutationCache.infos(matching: filter)
    }

    /// Cancels the pending calls `filter` lets through: each one's task is cancelled (an async fetcher sees
    /// `Task.isCancelled`), `onError` and `onSettled` run with `MutationError.cancelled`, and its scope moves on
    /// to the next call. Returns how many were cancelled.
    @discardableResult
    public func cancelMutations(matching filter: MutationFilter = .all) -> Int {
        mutationCache.cancel(matching: filter)
    }

    /// Sets the callbacks that run for every mutation call of this client, before the mutation's own; replaces
    /// the ones set before. Calls already past a callback do not run it again.
    public func setMutationCallbacks(_ callbacks: MutationCallbacks) {
        mutationCache.callbacks = callbacks
    }
}
