/// What a mutation's fetcher learns of the call it sends: the call's id in the client's mutation cache and its
/// idempotency key, the same on every attempt and after a restart.
///
/// ```swift
/// Mutation<NewTodo, Todo>(client: client) { todo, call in
///     try await api.create(todo, idempotencyKey: call.idempotencyKey)
/// }
/// ```
public struct MutationCall: Sendable, Hashable {
    /// The call's id in the client's mutation cache (`MutationInfo.id`); a restored call gets a new one.
    public let id: UInt64
    /// The idempotency key, written out when read.
    let key: IdempotencyKey

    /// Unique to the call and kept across restarts: send it to the server (an `Idempotency-Key` header) so that
    /// it can drop a request it already accepted.
    public var idempotencyKey: String { key.string }
}
