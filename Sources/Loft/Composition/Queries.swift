/// Parallel queries over a list that can change, of values of different types, combined into one result.
///
/// ```swift
/// let dashboard = Queries(
///     [
///         QueriesMember(key: "profile") { try await api.profile() },
///         QueriesMember(key: "stats") { try await api.stats() },
///     ]
/// ) { results in
///     (results.value(for: "profile", as: Profile.self), results.value(for: "stats", as: Stats.self))
/// }
/// let subscription = dashboard.combinedPublisher.sink { print($0) }
/// ```
///
/// **Behavior**
/// - Each member is a query of the client (dedupe, cache, retry, invalidation by prefix apply), started at
///   once.
/// - `combine` runs once per change of a member (or of the list), never under a lock, and its result is
///   memoised: reading `combined` again, or several observers, does not run it again. `combinedPublisher`
///   sends once per change; an `Equatable` result equal to the last one is not sent again.
/// - `setMembers(_:)` reuses the members whose keys are in the new list (no new fetch) and releases the others.
/// - `invalidate()`, `refetch()` and `cancel()` act on every member, as the members' own would.
/// - Observable (`LoftObservable`, observing `combined`); when released, its members leave their cache entries.
public final class Queries<Combined: Sendable>: Sendable {
    private struct State: Sendable {
        var members: [QueriesMemberHandle] = []
        var subscriptions: [QueryKey: Subscription] = [:]
    }

    /// The client whose cache holds the members' data.
    public let client: QueryClient
    private let combine: @Sendable (QueriesResults) -> Combined
    private let locked = Locked(State())
    /// The combined result is the data of this view's snapshots.
    private let view: DerivedView<Combined>

    /// Makes parallel queries.
    ///
    /// - Parameters:
    ///   - members: the queries, by key.
    ///   - client: the cache. Default `QueryClient.shared`.
    ///   - combine: makes the combined result from the members' states.
    public init(
        _ members: [QueriesMember], client: QueryClient = .shared,
        combine: @escaping @Sendable (QueriesResults) -> Combined
    ) {
        self.client = client
        self.combine = combine
        let empty = QuerySnapshot<Combined>.empty(key: Self.key)
        view = DerivedView(showing: empty, client: client)
        setMembers(members)
        view.derive { [weak self, locked] in
            guard let self else { return empty }
            return QuerySnapshot(key: Self.key, showing: .succeed(combine(makeResults(locked.withLock { $0.members }))))
        }
    }

    deinit {
        view.observer.close()
    }

    /// The key of the combined result's snapshots (it is no cache entry's).
    private static var key: QueryKey { "queries" }

    /// The members' states, by key.
    public var results: QueriesResults {
        _ = view.observer.trackedBox
        return makeResults(locked.withLock { $0.members })
    }

    /// `combine` of the current states, computed once per change.
    public var combined: Combined {
        let combined = view.observer.value.read { $0.unwrap(as: SnapshotBox<Combined>.self).snapshot.data }
        // The view has made its first result before `init` returned; this is never nil.
        return combined ?? combine(makeResults(locked.withLock { $0.members }))
    }

    /// The combined result after every change of a member or of the list, starting with the current one.
    public var combinedPublisher: AnyPublisher<Combined, Never> {
        view.observer.valuePublisher
    }

    /// Marks every member's key stale and refetches the members (as `Query.invalidate()` does). Returns at
    /// once; await the result's `value` for the combined result once the refetches have settled.
    @discardableResult
    public func invalidate() -> StartedQueries<Combined> {
        StartedQueries(memberKeys.map { client.invalidateQueries($0, exact: true) }, of: self)
    }

    /// Refetches every member now, even when fresh. Returns at once; await the result's `value` for the
    /// combined result once the refetches have settled.
    @discardableResult
    public func refetch() -> StartedQueries<Combined> {
        StartedQueries(memberKeys.map { client.refetchQueries($0, exact: true) }, of: self)
    }

    /// Cancels the members' fetches in flight; each goes back to what it was before its fetch.
    public func cancel() {
        for key in memberKeys { client.cancelQueries(key, exact: true) }
    }

    private var memberKeys: [QueryKey] {
        locked.withLock { $0.members.map(\.key) }
    }

    /// Replaces the list: members whose key is in both lists are kept as they are; new keys start fetching;
    /// the others are released.
    public func setMembers(_ members: [QueriesMember]) {
        let existing = locked.withLock { state in
            Dictionary(state.members.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        }
        var handles: [QueriesMemberHandle] = []
        var added: [QueriesMemberHandle] = []
        for member in members where !handles.contains(where: { $0.key == member.key }) {
            if let kept = existing[member.key] {
                handles.append(kept)
            } else {
                let handle = member.make(client)
                handles.append(handle)
                added.append(handle)
            }
        }
        let newSubscriptions = added.map { handle in
            (handle.key, handle.snapshots.sink { [weak self] in self?.memberChanged() })
        }
        let released = locked.withLock { state -> [Subscription] in
            state.members = handles
            for (key, subscription) in newSubscriptions { state.subscriptions[key] = subscription }
            let keys = Set(handles.map(\.key))
            let gone = state.subscriptions.filter { !keys.contains($0.key) }
            for key in gone.keys { state.subscriptions[key] = nil }
            return Array(gone.values)
        }
        for subscription in released { subscription.cancel() }
        memberChanged()
    }

    // MARK: - Actions

    private func makeResults(_ members: [QueriesMemberHandle]) -> QueriesResults {
        var states: [QueryKey: any Sendable] = [:]
        for member in members { states[member.key] = member.state() }
        return QueriesResults(keys: members.map(\.key), states: states)
    }

    private func memberChanged() {
        view.changed()
    }
}

extension Queries: LoftObservable {
    /// The observed value: `combined`.
    public var observed: Combined { combined }

    /// The observed changes: `combinedPublisher`.
    public var observedPublisher: AnyPublisher<Combined, Never> { combinedPublisher }
}
