/// A publisher that eventually produces one value or one error, from a completion-handler API.
///
/// ```swift
/// let user = Future<String, any Error> { promise in
///     legacyLoadUser { result in promise(result) }
/// }
/// ```
///
/// **Behavior**
/// - The closure runs once, at once (in `init`), like Combine's `Future`.
/// - Every subscriber, early or late, gets the same result: the value then `.finished`, or the failure.
/// - Only the first call to the promise counts; later calls are ignored.
public final class Future<Output: Sendable, Failure: Error>: Publisher {
    /// The callback that fulfils a future.
    public typealias Promise = @Sendable (Result<Output, Failure>) -> Void

    private let core = SubjectCore<Output, Failure>(replay: .currentValueAndCompletion)

    /// Makes a future and runs `attemptToFulfill` at once.
    ///
    /// - Parameter attemptToFulfill: receives the promise to call (once) with the result.
    public init(_ attemptToFulfill: (@escaping Promise) -> Void) {
        attemptToFulfill { [core] result in
            guard !core.isCompleted else { return }
            switch result {
            case .success(let value):
                core.send(value)
                core.send(completion: .finished)
            case .failure(let error):
                core.send(completion: .failure(error))
            }
        }
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.subscribe(subscriber)
    }
}
