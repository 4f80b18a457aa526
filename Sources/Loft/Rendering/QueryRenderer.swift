/// Turns the state of a query into text: one view per state, picked by `view(for:)`.
///
/// ```swift
/// struct UserRenderer: QueryRenderer {
///     func loadingView() -> String { "Loading…" }
///     func successView(for user: User) -> String { "👤 \(user.name)" }
///     func failureView(for error: any Error) -> String { "⚠️ \(error)" }
/// }
/// print(UserRenderer().view(for: query.state))
/// ```
public protocol QueryRenderer<Value> {
    /// The value a successful query holds.
    associatedtype Value: Sendable

    /// Nothing asked yet. Default: `loadingView()`.
    func idleView() -> String
    /// Fetching, nothing to show yet.
    func loadingView() -> String
    /// A value to show.
    func successView(for value: Value) -> String
    /// A failure with nothing to show.
    func failureView(for error: any Error) -> String
}

extension QueryRenderer {
    /// The loading view.
    public func idleView() -> String {
        loadingView()
    }

    /// The view of `state`.
    public func view(for state: QueryState<Value>) -> String {
        switch state {
        case .idle: idleView()
        case .loading: loadingView()
        case .failed(let error): failureView(for: error)
        case .succeed(let value): successView(for: value)
        }
    }

    /// The view of a snapshot's state, with a note when a background fetch is running or a refetch failed
    /// while older data is shown.
    public func view(for snapshot: QuerySnapshot<Value>) -> String {
        var text = view(for: snapshot.state)
        if snapshot.data != nil, snapshot.isFetching { text += "  (refreshing…)" }
        if snapshot.data != nil, let error = snapshot.error { text += "  (refresh failed: \(error))" }
        if snapshot.isPlaceholderData { text += "  (placeholder)" }
        return text
    }
}

/// Turns the state of a mutation into text: the shape of `QueryRenderer` (a mutation's state is a
/// `QueryState`), with an idle view that says "Ready." instead of the loading view.
public protocol MutationRenderer<Value>: QueryRenderer {}

extension MutationRenderer {
    /// "Ready."
    public func idleView() -> String {
        "Ready."
    }
}
