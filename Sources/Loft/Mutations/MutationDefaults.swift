/// How the calls of one mutation key are sent when no `Mutation` object made them: the calls saved before a
/// restart, which `QueryClient.resumePausedMutations()` sends again. Register them with
/// `QueryClient.setMutationDefaults(_:for:)` at start-up, before resuming (TanStack's way: a function cannot be
/// saved, so it is found again by the mutation key).
///
/// ```swift
/// client.setMutationDefaults(
///     MutationDefaults<NewTodo, Todo>(options: MutationOptions(scope: "todos")) { todo, call in
///         try await api.create(todo, idempotencyKey: call.idempotencyKey)
///     },
///     for: ["todos", "add"])
/// ```
public struct MutationDefaults<Request: Codable & Sendable, Response: Sendable>: Sendable {
    /// The options of a resumed call (callbacks, retries, `invalidates`); its scope and meta are the saved
    /// ones, and its `onMutate` does not run again.
    public var options: MutationOptions<Request, Response>
    /// Sends a resumed call.
    public var fetcher: Mutation<Request, Response>.CallFetcher

    /// Defaults with these options (default: none) and this fetcher.
    public init(
        options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping Mutation<Request, Response>.CallFetcher
    ) {
        self.options = options
        self.fetcher = fetcher
    }
}
