/// Callbacks that run for every mutation call of a client, before the mutation's own (TanStack's
/// `MutationCache` callbacks): global logging, error toasts, metrics. Set with
/// `QueryClient.setMutationCallbacks(_:)`.
///
/// ```swift
/// client.setMutationCallbacks(MutationCallbacks(onError: { error, call in log("\(call) failed: \(error)") }))
/// ```
///
/// **Behavior**
/// - Each runs once per call, just before the mutation's callback of the same name, with the call as
///   `MutationInfo` (request, key, scope, meta). A throwing one counts as a throwing callback of the call
///   (see `MutationOptions`).
public struct MutationCallbacks: Sendable {
    /// Before the request. Default none.
    public var onMutate: (@Sendable (MutationInfo) async throws -> Void)?
    /// After a successful request, with its response. Default none.
    public var onSuccess: (@Sendable (any Sendable, MutationInfo) async throws -> Void)?
    /// After a failed call, with the error. Default none.
    public var onError: (@Sendable (any Error, MutationInfo) async throws -> Void)?
    /// After either. Default none.
    public var onSettled: (@Sendable ((any Sendable)?, (any Error)?, MutationInfo) async throws -> Void)?

    /// Makes callbacks; each defaults to none.
    public init(
        onMutate: (@Sendable (MutationInfo) async throws -> Void)? = nil,
        onSuccess: (@Sendable (any Sendable, MutationInfo) async throws -> Void)? = nil,
        onError: (@Sendable (any Error, MutationInfo) async throws -> Void)? = nil,
        onSettled: (@Sendable ((any Sendable)?, (any Error)?, MutationInfo) async throws -> Void)? = nil
    ) {
        (self.onMutate, self.onSuccess, self.onError, self.onSettled) = (onMutate, onSuccess, onError, onSettled)
    }
}

extension MutationCallbacks {
    /// No callback is set.
    var isEmpty: Bool {
        onMutate == nil && onSuccess == nil && onError == nil && onSettled == nil
    }
}
