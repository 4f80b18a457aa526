/// Why a mutation call failed without its request failing.
public enum MutationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call was cancelled (`Mutation.cancel()`, `QueryClient.cancelMutations(matching:)`, or the task
    /// awaiting `mutate` was cancelled) before it settled.
    case cancelled(id: UInt64)

    /// `mutation 3 was cancelled`.
    public var description: String {
        switch self {
        case .cancelled(let id): "mutation \(id) was cancelled"
        }
    }
}
