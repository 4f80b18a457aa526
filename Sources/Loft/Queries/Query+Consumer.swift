import Observation

extension Query {
    /// Reads and observes the state of a key without being able to fetch it: another screen's view of data
    /// that a `Query` (or `fetchQuery`) produces.
    ///
    /// ```swift
    /// let header = Query<Int, User>.Consumer(key: ["user", 42])
    /// let subscription = header.statePublisher.sink { print($0) }
    /// ```
    ///
    /// **Behavior**
    /// - It shares the producer's state, never a copy: every change of the key's entry reaches it.
    /// - A consumer of a key that nobody fetched yet is `.idle`, and turns `.succeed` when someone does.
    /// - An invalidation of a key observed only by consumers refetches with the last request made for it.
    /// - When released, it leaves the entry's observers. When the entry is removed, it follows the key to the
    ///   next entry made for it.
    public final class Consumer: Sendable {
        private let observation: QueryObservation<Response, Response>
        private let registrar = ObservationRegistrar()

        /// Observes `key`.
        ///
        /// - Parameters:
        ///   - key: the key to observe.
        ///   - options: `select`, placeholder data, `staleTime` (for `isStale`). Default: the client's.
        ///   - client: the cache. Default `QueryClient.shared`.
        public init(key: QueryKey, options: QueryOptions<Response> = QueryOptions(), client: QueryClient = .shared) {
            observation = QueryObservation(client: client, options: options, key: key) { $0 }
            observation.onChange { [weak self] in self?.notifyObservers() }
            observation.attach(to: key)
        }

        deinit {
            observation.detach()
        }

        /// The key observed.
        public var key: QueryKey {
            observation.key
        }

        /// What to show: idle, loading, failed, or the value.
        public var state: QueryState<Response> {
            registrar.access(self, keyPath: \.snapshot)
            return observation.snapshot.state
        }

        /// The full picture of the key.
        public var snapshot: QuerySnapshot<Response> {
            registrar.access(self, keyPath: \.snapshot)
            return observation.snapshot
        }

        /// Every change of `state`, starting with the current one.
        public var statePublisher: AnyPublisher<QueryState<Response>, Never> {
            observation.statePublisher
        }

        /// Every new value, starting with the current one if there is one.
        public var valuePublisher: AnyPublisher<Response, Never> {
            observation.valuePublisher
        }

        /// `statePublisher` as an `AsyncSequence`.
        public var states: AsyncStream<QueryState<Response>> {
            statePublisher.values
        }

        private func notifyObservers() {
            registrar.notifyChange(of: self, at: \.snapshot)
        }
    }
}

extension Query.Consumer: Observable {}
