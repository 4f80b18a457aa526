@_exported import Loft

extension LoftObservable {
    /// Waits until the observed value satisfies `predicate` and returns it (the current value counts). Works for
    /// every observable Loft type: queries, consumers, selections, pages, streamed queries, mutations, and
    /// `Queries` (its `combined` result).
    ///
    /// Pair it with `TestScheduler` and `QueryClient.waitUntilIdle()`: it never sleeps.
    public func first(where predicate: @escaping @Sendable (Observed) -> Bool) async -> Observed {
        for await value in observedValues where predicate(value) { return value }
        return observed
    }
}

extension ObservableQueryState {
    /// Waits until the state satisfies `predicate` and returns it: `first(where:)` under the name that says
    /// what is observed.
    public func firstState(where predicate: @escaping @Sendable (QueryState<Value>) -> Bool) async
        -> QueryState<Value>
    {
        await first(where: predicate)
    }
}

/// Records every value a publisher sends, for assertions in tests.
public final class PublisherRecorder<Value: Sendable>: Sendable {
    private let recorded = Locked<[Value]>([])
    private let subscription: Locked<Subscription?> = Locked(nil)

    /// Subscribes to `publisher` and records what it sends until the recorder is released.
    public init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == Never {
        let token = publisher.sink { [recorded] value in recorded.withLock { $0.append(value) } }
        subscription.withLock { $0 = token }
    }

    /// Every value so far, in order.
    public var values: [Value] {
        recorded.withLock { $0 }
    }
}
