/// Why a mutation call failed without its request failing.
public enum MutationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call was cancelled (`Mutation.cancel()`, `QueryClient.cancelMutations(matching:)`, or the task
    /// awaiting `mutate` was cancelled) before it settled.
    case cancelled(id: UInt64)
    /// A call restored after a restart names a mutation key that no `QueryClient.setMutationDefaults(_:for:)`
    /// registered: it stays saved until one is registered and `resumePausedMutations()` runs again.
    case noDefaults(mutationKey: QueryKey)

    /// `mutation 3 was cancelled`.
    public var description: String {
        switch self {
        case .cancelled(let id): "mutation \(id) was cancelled"
        case .noDefaults(let key): "no mutation defaults are set for \(key): its saved calls cannot be resumed"
        }
    }
}
