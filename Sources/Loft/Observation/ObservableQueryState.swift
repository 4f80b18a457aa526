import Observation

/// What every observable Loft type is: a `QueryState` to read, and its changes to subscribe to or observe.
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
/// **Behavior**
/// - `state` is readable from any thread; reading it inside SwiftUI (or `withObservationTracking`) tracks it.
/// - `statePublisher` sends the current state first, then every change, in order, on the client's delivery
///   scheduler; `states` is the same as an `AsyncSequence`.
public protocol ObservableQueryState<Value>: AnyObject, Observable, Sendable {
    /// The type of the value shown.
    associatedtype Value: Sendable

    /// What to show: idle, loading, failed, or the value.
    var state: QueryState<Value> { get }

    /// Every change of `state`, starting with the current one.
    var statePublisher: AnyPublisher<QueryState<Value>, Never> { get }
}

extension ObservableQueryState {
    /// `statePublisher` as an `AsyncSequence`.
    public var states: AsyncStream<QueryState<Value>> {
        statePublisher.values
    }
}
