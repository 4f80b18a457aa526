/// A publisher made from an `async` closure: each subscriber starts a task that runs it.
///
/// ```swift
/// let profile = AsyncFuture { try await api.profile() }
/// let subscription = profile.sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// ```
///
/// **Behavior**
/// - Each subscription runs the closure once, in its own task; the result is the value then `.finished`,
///   or `.failure(error)`.
/// - Cancelling the subscription cancels the task, and nothing is delivered after that.
/// - Delivery happens on the task's thread; use `receive(on:)` to move it.
public struct AsyncFuture<Output: Sendable, Failure: Error>: Publisher {
    /// The work each subscription runs.
    public let operation: @Sendable () async throws(Failure) -> Output
    private let priority: TaskPriority?

    /// Makes a publisher that runs `operation` for each subscriber.
    ///
    /// - Parameters:
    ///   - priority: the priority of the task (default: inherited).
    ///   - operation: the work; its error type is this publisher's `Failure`.
    public init(priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async throws(Failure) -> Output) {
        self.priority = priority
        self.operation = operation
    }

    /// Attaches `subscriber` (see `Publisher.receive(subscriber:)`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let task = Locked<Task<Void, Never>?>(nil)
        let link = UpstreamLink()
        subscriber.receive(
            subscription: link.downstreamToken {
                task.withLock { $0 }?.cancel()
            })
        guard link.isActive else { return }
        let operation = operation
        let started = Task(priority: priority) {
            do throws(Failure) {
                let value = try await operation()
                guard link.isActive else { return }
                subscriber.receive(value)
                if link.end(cancellingUpstream: false) {
                    subscriber.receive(completion: .finished)
                }
            } catch {
                if link.end(cancellingUpstream: false) {
                    subscriber.receive(completion: .failure(error))
                }
            }
        }
        task.withLock { $0 = started }
        if !link.isActive { started.cancel() }
    }
}
