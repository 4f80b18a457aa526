import Foundation

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

    /// Sets the defaults of the mutations whose key starts with `prefix`: their options (for live calls and
    /// for calls restored after a restart) and the fetcher that sends a restored call again (a function cannot
    /// be saved; TanStack's way). Replaces the defaults set before for that prefix.
    ///
    /// ```swift
    /// client.setMutationDefaults(MutationDefaults<NewTodo, Todo>(options: MutationOptions(retry: .default)) {
    ///     todo, call in try await api.create(todo, idempotencyKey: call.idempotencyKey)
    /// }, for: ["todos"])
    /// ```
    ///
    /// **Behavior**
    /// - Matching is by key prefix: defaults for `["todos"]` serve `["todos", "add"]`. Every matching defaults
    ///   of the mutation's `Request` and `Response` types merge field by field, the longer prefix winning per
    ///   field; a `Mutation`'s own options override them field by field. They are read at each call, so
    ///   defaults set after a mutation was made serve its next calls.
    /// - A call restored after a restart is sent with the fetcher of the longest matching prefix.
    /// - A call is saved when the client has a persistent cache, its options name a `mutationKey` and its
    ///   request is `Codable`: before its request is first sent, until it settled. Register the defaults of
    ///   every saved mutation key at start-up, then call `resumePausedMutations()`.
    public func setMutationDefaults<Request: Codable & Sendable, Response: Sendable>(
        _ defaults: MutationDefaults<Request, Response>, for prefix: QueryKey
    ) {
        let resume: MutationCache.Resumer = { client, entry in
            let request: Request
            do {
                request = try JSONDecoder().decode(Request.self, from: Data(entry.record.request.utf8))
            } catch {
                throw CacheError.undecodableValue(
                    key: entry.key, storedType: "request", expectedType: "\(Request.self)", reason: "\(error)")
            }
            Mutation(client: client, options: defaults.options, fetcher: defaults.fetcher).resume(request, entry)
        }
        mutationCache.setDefaults(
            MutationCache.RegisteredDefaults(options: defaults.options, resume: resume), for: prefix)
    }

    /// Sends again the mutation calls saved in the persistent cache before a restart (those no call of this
    /// client runs), in submission order: calls of one scope one after another. Returns how many it resumed.
    ///
    /// ```swift
    /// client.resumePausedMutations()                                  // as the client was told (setOnline)
    /// client.resumePausedMutations(isOnline: HostConnectivity.isOnline())  // as the host says
    /// ```
    ///
    /// - Parameter isOnline: the connectivity to resume under, given to `setOnline(_:)` first; nil (the default)
    ///   takes the client's as last told, so the call reads nothing from the platform and a test of it is
    ///   deterministic. Pass `HostConnectivity.isOnline()` to ask the host's network interfaces (nil when it
    ///   cannot tell changes nothing).
    ///
    /// **Behavior**
    /// - Never sends while offline: a resumed call with `networkMode .online` waits, paused, until
    ///   `setOnline(true)`.
    /// - At least once: a call is saved before it is first sent and cleared once it settled, so a call the
    ///   server accepted just before the process died is sent again, with the same idempotency key
    ///   (`MutationCall.idempotencyKey`): a server that records the keys it saw drops the duplicate.
    /// - A resumed call runs its `MutationDefaults` options' callbacks but not `onMutate` (it ran before the
    ///   restart); their context is nil.
    /// - A saved call whose mutation key has no defaults stays saved, reported on `events` as
    ///   `persistenceFailed` with `MutationError.noDefaults`; one whose request no longer decodes is dropped and
    ///   reported with `CacheError.undecodableValue`. Calling it again resumes nothing twice.
    @discardableResult
    public func resumePausedMutations(isOnline: Bool? = nil) -> Int {
        if let isOnline { setOnline(isOnline) }
        return mutationCache.resumeJournal(for: self)
    }
}
