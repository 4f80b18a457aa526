/// How a publisher ended: normally, or with an error.
public enum Completion<Failure: Error>: Sendable {
    /// The publisher finished normally; it sends nothing more.
    case finished
    /// The publisher failed with `Failure`; it sends nothing more.
    case failure(Failure)
}

extension Completion: Equatable where Failure: Equatable {}

extension Completion {
    /// The error of a `.failure`, or nil for `.finished`.
    public var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
