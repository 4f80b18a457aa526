/// A mutation declared once: its key, its fetcher and its options, in one value that `Mutation(_:)` and
/// `QueryClient.setMutationDefaults(_:)` both take, so the request and response types follow the key.
///
/// ```swift
/// static let addTodo = MutationDefinition<NewTodo, Todo>(
///     key: ["todos", "add"], options: MutationOptions(retry: .default)
/// ) { todo, call in try await api.create(todo, idempotencyKey: call.idempotencyKey) }
///
/// client.setMutationDefaults(addTodo)      // at start-up: restored calls are sent with it
/// let add = Mutation(addTodo)              // a screen's mutation of that kind
/// ```
///
/// **Behavior**
/// - A definition is a value: it holds no state and starts nothing.
/// - Its key is the calls' `mutationKey` (filters find them by it, saved calls are restored by it): the key
///   given here replaces a `mutationKey` in the options.
public struct MutationDefinition<Request: Sendable, Response: Sendable>: Sendable {
    /// The key of the calls (their `mutationKey`).
    public let key: QueryKey
    /// The calls' options, with `mutationKey` set to `key`.
    public let options: MutationOptions<Request, Response>
    /// Sends a request; it gets the call too (its idempotency key).
    public let fetcher: Mutation<Request, Response>.CallFetcher

    /// Declares a mutation whose fetcher takes the call too.
    ///
    /// - Parameters:
    ///   - key: the calls' `mutationKey`.
    ///   - options: the calls' options. Default: the client's defaults for the key.
    ///   - fetcher: sends a request.
    public init(
        key: QueryKey, options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping Mutation<Request, Response>.CallFetcher
    ) {
        self.key = key
        var options = options
        options.mutationKey = key
        self.options = options
        self.fetcher = fetcher
    }

    /// Declares a mutation whose fetcher takes the request alone.
    ///
    /// - Parameters: as `init(key:options:fetcher:)`.
    public init(
        key: QueryKey, options: MutationOptions<Request, Response> = MutationOptions(),
        fetcher: @escaping Mutation<Request, Response>.Fetcher
    ) {
        self.init(key: key, options: options) { request, _ in try await fetcher(request) }
    }
}

extension Mutation {
    /// Makes the mutation that `definition` declares: its key, options and fetcher.
    ///
    /// - Parameters:
    ///   - definition: the mutation's declaration.
    ///   - client: the client whose mutation cache tracks its calls. Default `QueryClient.shared`.
    public convenience init(_ definition: MutationDefinition<Request, Response>, client: QueryClient = .shared) {
        self.init(client: client, options: definition.options, fetcher: definition.fetcher)
    }
}

extension QueryClient {
    /// Sets `definition` as the defaults of the mutations under its key (`setMutationDefaults(_:for:)`): its
    /// options for live calls, and its fetcher and options for calls restored after a restart.
    public func setMutationDefaults<Request: Codable & Sendable, Response: Sendable>(
        _ definition: MutationDefinition<Request, Response>
    ) {
        setMutationDefaults(
            MutationDefaults(options: definition.options, fetcher: definition.fetcher), for: definition.key)
    }
}
