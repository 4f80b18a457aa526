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

// MARK: - Types that show one state

/// What every observable Loft type that shows one state is: a `QueryState` to read, and its changes to subscribe
/// to or observe. A `LoftObservable` whose observed value is its `state`.
///
/// `Query`, `Query.Consumer` and every `Query.Selection`, `InfiniteQuery`, `PaginatedQuery`, `StreamedQuery`
/// and `Mutation` conform, so that code (a view, a renderer, a testing helper) written once works for all.
///
/// ```swift
/// func show<Source: ObservableQueryState>(_ source: Source) -> String {
///     source.state.value.map { "\($0)" } ?? "…"
/// }
/// ```
///
/// Loft's types all show their state through one component (a view of their state, made once per change and
/// read by reference), so `state`, `statePublisher` and `valuePublisher` behave and cost the same on each.
///
/// **Behavior**
/// - `state` is readable from any thread; reading it inside SwiftUI (or `withObservationTracking`) tracks it.
/// - `statePublisher` sends the current state first, then every change, in order, on the client's delivery
///   scheduler; `states` is the same as an `AsyncSequence`.
public protocol ObservableQueryState<Value>: LoftObservable where Observed == QueryState<Value> {
    /// The type of the value shown.
    associatedtype Value: Sendable

    /// What to show: idle, loading, failed, or the value.
    var state: QueryState<Value> { get }

    /// Every change of `state`, starting with the current one.
    var statePublisher: AnyPublisher<QueryState<Value>, Never> { get }

    /// Every new value, starting with the current one if there is one. Default: the values of
    /// `statePublisher`; Loft's types send each distinct value once, decided once per change for all
    /// subscribers.
    var valuePublisher: AnyPublisher<Value, Never> { get }
}

extension ObservableQueryState {
    /// The values of `statePublisher`.
    public var valuePublisher: AnyPublisher<Value, Never> {
        statePublisher.compactMap(\.value).eraseToAnyPublisher()
    }

    /// The observed value: `state`.
    public var observed: QueryState<Value> { state }

    /// The observed changes: `statePublisher`.
    public var observedPublisher: AnyPublisher<QueryState<Value>, Never> { statePublisher }

    /// `statePublisher` as an `AsyncSequence`.
    public var states: AsyncStream<QueryState<Value>> {
        statePublisher.values
    }
}
