/// The calls of a client's mutations that a filter lets through, followed live from anywhere (TanStack's
/// `useMutationState`): another screen shows a pending "add todo" as an optimistic row without holding the
/// `Mutation`.
///
/// ```swift
/// let adding = MutationList(matching: MutationFilter(key: ["todos", "add"], status: .pending), client: client) {
///     $0.request(as: NewTodo.self)
/// }
/// let rows = adding.calls.compactMap { $0 }  // the todos being added, in submission order
/// ```
///
/// **Behavior**
/// - `calls` is `select` of every call the filter lets through, in submission order, as
///   `QueryClient.mutations(matching:)` lists them: from submission until `gcTime` after the call settled.
/// - It changes with each mutation event of a call whose mutation key the filter's key covers (the call may
///   enter or leave the list), and `callsPublisher` sends the new list; an `Equatable` selection equal to the
///   last one is not sent again.
/// - Observable (`LoftObservable`, observing `calls`); it stops following the cache when released.
public final class MutationList<Value: Sendable>: Sendable {
    /// The client whose mutation cache it follows.
    public let client: QueryClient
    /// Which calls it shows.
    public let filter: MutationFilter
    private let view: DerivedView<[Value]>
    private let subscription = Locked<Subscription?>(nil)

    /// Follows the calls `filter` lets through (default: every call of `client`), each shown as `select`
    /// makes it.
    public init(
        matching filter: MutationFilter = .all, client: QueryClient = .shared,
        select: @escaping @Sendable (MutationInfo) -> Value
    ) {
        self.client = client
        self.filter = filter
        let key = Self.key
        view = DerivedView(showing: QuerySnapshot(key: key, showing: .succeed([])), client: client)
        view.derive { [client] in
            QuerySnapshot(key: key, showing: .succeed(client.mutations(matching: filter).map(select)))
        }
        let watched = filter.key
        let followed = client.events.sink { [weak view] event in
            guard case .mutation(let change) = event else { return }
            if let watched {
                guard let own = change.info.mutationKey, own.hasPrefix(watched) else { return }
            }
            view?.changed()
        }
        subscription.withLock { $0 = followed }
    }

    deinit {
        subscription.withLock { $0 }?.cancel()
        view.observer.close()
    }

    private static var key: QueryKey { "mutations" }

    /// The selected calls, in submission order.
    public var calls: [Value] {
        view.observer.trackedState.value ?? []
    }

    /// The list after every change, starting with the current one.
    public var callsPublisher: AnyPublisher<[Value], Never> {
        view.observer.valuePublisher
    }
}

extension MutationList where Value == MutationInfo {
    /// Follows the calls `filter` lets through (default: every call of `client`), as the cache lists them.
    public convenience init(matching filter: MutationFilter = .all, client: QueryClient = .shared) {
        self.init(matching: filter, client: client) { $0 }
    }
}

extension MutationList: LoftObservable {
    /// The observed value: `calls`.
    public var observed: [Value] { calls }

    /// The observed changes: `callsPublisher`.
    public var observedPublisher: AnyPublisher<[Value], Never> { callsPublisher }
}
