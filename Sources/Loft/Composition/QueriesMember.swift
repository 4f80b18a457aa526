/// One member of a `Queries`: a key, and how to fetch its value, of any type.
public struct QueriesMember: Sendable {
    /// The key of the member's data; members are reused by key when the list changes.
    public let key: QueryKey
    let make: @Sendable (QueryClient) -> QueriesMemberHandle

    /// A member fetching a `Response` for `key`.
    ///
    /// - Parameters:
    ///   - key: the key of its data.
    ///   - options: freshness, retries, `enabled`… Default: the client's.
    ///   - fetcher: fetches its value.
    public init<Response: Sendable>(
        key: QueryKey, options: QueryOptions<Response> = QueryOptions(),
        fetcher: @escaping @Sendable () async throws -> Response
    ) {
        self.key = key
        make = { client in
            let query = Query<Void, Response>(
                key: key, behavior: .startImmediately(()), options: options, client: client
            ) { try await fetcher() }
            return QueriesMemberHandle(
                key: key, query: query, state: { query.state },
                snapshots: query.snapshotPublisher.map { _ in () }.eraseToAnyPublisher())
        }
    }
}

/// A live member: its query (kept alive here), its state type-erased, and its changes.
struct QueriesMemberHandle: Sendable {
    let key: QueryKey
    let query: any Sendable
    /// The member's `QueryState<Response>`, as `any Sendable`.
    let state: @Sendable () -> any Sendable
    let snapshots: AnyPublisher<Void, Never>
}

/// The states of a `Queries`' members, looked up by key: what `combine` receives.
public struct QueriesResults: Sendable {
    /// The members' keys, in the order given.
    public let keys: [QueryKey]
    private let states: [QueryKey: any Sendable]

    init(keys: [QueryKey], states: [QueryKey: any Sendable]) {
        self.keys = keys
        self.states = states
    }

    /// The state of the member of `key` as a `QueryState<Response>`; nil when there is no such member, or its
    /// type is another.
    public func state<Response: Sendable>(for key: QueryKey, as type: Response.Type = Response.self)
        -> QueryState<Response>?
    {
        states[key] as? QueryState<Response>
    }

    /// The value of the member of `key`, if it has one of that type.
    public func value<Response: Sendable>(for key: QueryKey, as type: Response.Type = Response.self) -> Response? {
        state(for: key, as: type)?.value
    }

    /// Whether any member has nothing to show yet (idle or loading).
    public var isPending: Bool {
        keys.contains { key in
            guard let state = states[key] as? any QueryStateInspectable else { return true }
            return state.isPendingState
        }
    }

    /// The errors of the members that failed with nothing to show, by key.
    public var errors: [QueryKey: any Error] {
        var errors: [QueryKey: any Error] = [:]
        for key in keys {
            if let error = (states[key] as? any QueryStateInspectable)?.failure { errors[key] = error }
        }
        return errors
    }
}

/// What `QueriesResults` reads from a type-erased `QueryState`.
protocol QueryStateInspectable {
    var isPendingState: Bool { get }
    var failure: (any Error)? { get }
}

extension QueryState: QueryStateInspectable {
    var isPendingState: Bool {
        switch self {
        case .idle, .loading: true
        case .failed, .succeed: false
        }
    }

    var failure: (any Error)? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
