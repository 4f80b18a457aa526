/// Where items come from: the slow service the item service stands in front of.
public protocol ItemUpstream: Sendable {
    /// The item `id`, as the upstream has it now.
    func item(_ id: Int) async throws -> Item
    /// Renames item `change.id`; returns the item as the upstream stored it.
    func update(_ change: ItemChange) async throws -> Item
}

/// Why the upstream did not answer with an item.
public enum UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It answered with an HTTP status other than 200.
    case status(Int)
    /// It did not answer within the request's time limit.
    case timedOut
    /// It could not be reached, or its answer was not an item.
    case unreachable(String)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .status(let code): "the upstream answered HTTP \(code)"
        case .timedOut: "the upstream did not answer in time"
        case .unreachable(let reason): "the upstream could not be reached: \(reason)"
        }
    }
}
