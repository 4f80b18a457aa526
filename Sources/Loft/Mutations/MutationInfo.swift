/// One call of a mutation as the client's mutation cache lists it (`QueryClient.mutations(matching:)`, the
/// mutation events, `MutationList`): an immutable snapshot.
public struct MutationInfo: Sendable, Identifiable, CustomStringConvertible {
    /// Unique within the client, increasing in submission order.
    public let id: UInt64
    /// The options' `mutationKey`, if any.
    public let mutationKey: QueryKey?
    /// The options' `scope`, if any.
    public let scope: String?
    /// The request the call was submitted with.
    public let request: any Sendable
    /// Pending until the call settled, then success or error.
    public let status: MutationStatus
    /// Pending but not running: waiting for an earlier call of its scope, or for the network.
    public let isPaused: Bool
    /// Failed attempts so far; back to 0 once the call succeeds (after retries).
    public let failureCount: Int
    /// The error of the last failed attempt (nil before one failed, and once the call succeeded).
    public let failureReason: (any Error)?
    /// When the call was submitted, on the client's scheduler.
    public let submittedAt: SchedulerInstant
    /// The response, once it succeeded.
    public let response: (any Sendable)?
    /// The error, once it failed.
    public let error: (any Error)?
    /// The options' `meta`.
    public let meta: [String: String]
    /// The call's idempotency key, written out when read.
    let key: IdempotencyKey

    /// Unique to the call and kept across restarts: the fetcher receives it (`MutationCall`) on every attempt,
    /// so that a server can recognise a request it already accepted.
    public var idempotencyKey: String { key.string }

    /// The request as `T`, or nil when it is of another type.
    public func request<T>(as type: T.Type = T.self) -> T? {
        request as? T
    }

    /// `#3 ["todos", "add"] pending (paused)`.
    public var description: String {
        let key = mutationKey.map { " \($0)" } ?? ""
        let scope = scope.map { " scope \($0)" } ?? ""
        return "#\(id)\(key)\(scope) \(status.rawValue)\(isPaused ? " (paused)" : "")"
    }
}
