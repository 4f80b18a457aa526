import Observation

/// What every observable Loft type is: one current value to read, observable with Observation, and its changes
/// to subscribe to.
///
/// Every type that shows state conforms: through `ObservableQueryState` (whose observed value is its `state`)
/// `Query`, `Query.Consumer`, `Query.Selection`, `InfiniteQuery`, `PaginatedQuery`, `StreamedQuery` and
/// `Mutation`; and `Queries`, whose observed value is its `combined` result. A helper written once against
/// `LoftObservable` (as `LoftTesting`'s `first(where:)`) works for all of them.
///
/// **Behavior**
/// - `observed` is readable from any thread; reading it inside SwiftUI (or `withObservationTracking`) tracks it.
/// - `observedPublisher` sends the current value first, then every change, in order; `observedValues` is the
///   same as an `AsyncSequence`.
public protocol LoftObservable<Observed>: AnyObject, Observable, Sendable {
    /// The type of what is observed.
    associatedtype Observed: Sendable

    /// What is shown now.
    var observed: Observed { get }

    /// Every change of `observed`, starting with the current one.
    var observedPublisher: AnyPublisher<Observed, Never> { get }
}

extension LoftObservable {
    /// `observedPublisher` as an `AsyncSequence`.
    public var observedValues: AsyncStream<Observed> {
        observedPublisher.values
    }
}
