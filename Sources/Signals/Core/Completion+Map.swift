extension Completion {
    /// The same completion with its error transformed.
    public func mapError<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> Completion<NewFailure> {
        switch self {
        case .finished: .finished
        case .failure(let error): .failure(transform(error))
        }
    }

    /// The same completion with its error as `any Error`.
    public var eraseError: Completion<any Error> {
        mapError { $0 }
    }
}
