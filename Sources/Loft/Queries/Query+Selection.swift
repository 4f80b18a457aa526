import Observation

extension Query {
    /// A derived view of a query's data in another type: `[User]` in the cache, `[String]` of names on the
    /// screen (TanStack's and SunKit's `select` that changes the type).
    ///
    /// ```swift
    /// let users = Query<Void, [User]>(key: "users", behavior: .startImmediately(()), client: client) {
    ///     try await api.users()
    /// }
    /// let names = users.select { users in users.map(\.name) }
    /// let subscription = names.valuePublisher.sink { print($0) }
    /// ```
    ///
    /// **Behavior**
    /// - It observes one key (for `Query.select(_:)`, the key the query had then) without being able to fetch
    ///   it, and shares the entry's state, never a copy. `Consumer` is the selection of the data itself.
    /// - `select` runs once per new data (not per read, nor when a refetch returns an equal value), outside any
    ///   lock; the query's own `select` and placeholder data come first.
    /// - When released, it leaves the entry's observers; when the entry is removed, it follows the key to the
    ///   next entry made for it.
    public final class Selection<Value: Sendable>: Sendable {
        @usableFromInline let observation: QueryObservation<Response, Value>

        init(
            key: QueryKey, options: QueryOptions<Response>, client: QueryClient,
            select: (@Sendable (Response) -> Value)?
        ) {
            observation = QueryObservation(client: client, options: options, key: key, project: select)
            observation.attach(to: key)
        }

        deinit {
            observation.close()
        }

        /// The key observed.
        public var key: QueryKey {
            observation.key
        }

        /// What to show: idle, loading, failed, or the selected value.
        @inlinable
        public var state: QueryState<Value> {
            observation.value.read { $0.unwrap(as: SnapshotBox<Value>.self).state }
        }

        /// The full picture of the key, with the selected value.
        @inlinable
        public var snapshot: QuerySnapshot<Value> {
            observation.value.read { $0.unwrap(as: SnapshotBox<Value>.self).snapshot }
        }

        /// Every change of `state`, starting with the current one.
        public var statePublisher: AnyPublisher<QueryState<Value>, Never> {
            observation.statePublisher
        }

        /// Every new selected value, starting with the current one if there is one.
        public var valuePublisher: AnyPublisher<Value, Never> {
            observation.valuePublisher
        }

        /// Every change of the snapshot, starting with the current one.
        public var snapshotPublisher: AnyPublisher<QuerySnapshot<Value>, Never> {
            observation.snapshots
        }

        /// Marks the observed key stale; the queries of the key refetch it (a consumer of a key only consumers
        /// observe refetches with the last request made for it).
        public func invalidate() {
            observation.client.invalidateQueries(key, exact: true)
        }

        /// Cancels the observed key's fetch in flight; the state goes back to what it was before the fetch.
        public func cancel() {
            observation.client.cancelQueries(key, exact: true)
        }

    }

    /// A view of this query's data through `select`, in another type; see `Selection`.
    public func select<Value: Sendable>(
        _ select: @escaping @Sendable (Response) -> Value
    ) -> Selection<Value> {
        Selection(key: key, options: options, client: client, select: select)
    }
}

extension Query.Selection: ObservableQueryState {}
