extension Publisher where Failure == Never {
    /// The values of this publisher as an `AsyncSequence`.
    ///
    /// ```swift
    /// for await value in subject.values { print(value) }
    /// ```
    /// **Behavior**
    /// - Subscribes when `values` is read; values that arrive before the loop asks are buffered, in order.
    /// - The sequence ends when the publisher finishes.
    /// - Cancelling the iterating task, or dropping the sequence, cancels the subscription.
    public var values: AsyncStream<Output> {
        AsyncStream { continuation in
            let subscription = sink(
                receiveCompletion: { _ in continuation.finish() },
                receiveValue: { continuation.yield($0) }
            )
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }
}

extension Publisher {
    /// The values of this publisher as a throwing `AsyncSequence`: a failure is thrown by the loop.
    ///
    /// ```swift
    /// for try await value in publisher.values { print(value) }
    /// ```
    /// **Behavior**
    /// - Subscribes when `values` is read; values that arrive before the loop asks are buffered, in order.
    /// - Cancelling the iterating task, or dropping the sequence, cancels the subscription.
    public var values: AsyncThrowingStream<Output, any Error> {
        AsyncThrowingStream { continuation in
            let subscription = sink(
                receiveCompletion: { completion in
                    switch completion {
                    case .finished: continuation.finish()
                    case .failure(let error): continuation.finish(throwing: error)
                    }
                },
                receiveValue: { continuation.yield($0) }
            )
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }
}
