import Foundation
import Loft
import NIOConcurrencyHelpers
import PostgresNIO

/// Carries one instance's cache changes to every other instance of a service, over PostgreSQL's
/// `LISTEN`/`NOTIFY`, in one order for the whole fleet: every change takes a version from the database, and
/// every instance applies a key's changes only where they are newer than what it holds.
///
/// ```swift
/// let link = PostgresFleetLink(client: client, cache: shared)
/// link.start()
/// await client.invalidateQueries(["user", 42]).settled()  // every instance's ["user", 42] is now stale
/// ```
///
/// **Behavior**
/// - Values travel with the rows: each save of the client's (a fetched value, a `setQueryData`) writes the
///   row and notifies it with the row's version in one statement (see `PostgresQueryCache`). The link
///   applies each row's notification to its client (`QueryClient.apply(_:)`, with the version), this
///   instance's own included: an entry takes it only if its data is older, so every instance ends a burst
///   of writes with the value of the last one the database committed, the row's. A value too large for a
///   notification (8,000 bytes) travels without itself, and each instance reads the row.
/// - The other changes of the client's caller (`QueryClient.sharedChanges`: `invalidateQueries`,
///   `invalidate(_:)`, `removeQueries`, a `setQueryData` of a value that is not `Codable`) are sent on the
///   cache's connection, in the order they were made, each with a new version from the table's sequence;
///   the other instances apply them with the same targets and filter (a filter's predicate cannot travel:
///   they act on every entry the rest of the filter matches). An instance skips its own, which it applied
///   already; a change it applied is not sent again: loops are impossible.
/// - An invalidation by key or prefix also marks the rows of those keys in the shared table stale, in the same
///   statement as the notification: an instance that refetches does not get the old row back from the table
///   or from a `PostgresSingleFlight`. Tags are not in the table: an invalidation by tag reaches every client
///   but leaves the rows as they are.
/// - Delivery is at most once: a change sent while an instance's listening connection is down does not
///   reach it. When the link listens again it tells the client (`QueryClient.changesMissed(from:)`): every
///   entry becomes stale and the active ones refetch, and the client's events say `changesMissed`.
/// - The listening connection is checked every `healthCheckInterval` (`SELECT 1`, answered within the
///   cache's timeout): a dead or hung server is reported as `lost` within the interval plus the timeout
///   (7 s with the defaults), and the link connects again every `reconnectDelay` until it is back, each
///   attempt bounded by the timeout.
/// - It runs from `start()` until `stop()` (which it needs: the listening task keeps the link alive), with
///   one connection of its own for listening. A change that cannot be sent (the server is down) is reported
///   as `FleetLinkEvent.sendFailed`, not retried.
public final class PostgresFleetLink: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var subscription: Subscription?
        var isListening = false
        var listeningWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The client whose changes go out, and to which the others' are applied.
    public let client: QueryClient
    /// The shared table; its connection sends the changes.
    public let cache: PostgresQueryCache
    /// The notification channel: `<table>_changes`.
    public let channel: String
    /// How long the link waits before making a lost listening connection again. Default 200 ms.
    public let reconnectDelay: Duration
    /// How often the listening connection is checked. Default 2 seconds.
    public let healthCheckInterval: Duration
    private let state = NIOLockedValueBox(State())
    private let subject = PassthroughSubject<FleetLinkEvent, Never>()

    /// A link between `client` and the other instances that share `cache`'s table; it does nothing until
    /// `start()`.
    public init(
        client: QueryClient, cache: PostgresQueryCache, reconnectDelay: Duration = .milliseconds(200),
        healthCheckInterval: Duration = .seconds(2)
    ) {
        self.client = client
        self.cache = cache
        self.channel = cache.channel
        self.reconnectDelay = reconnectDelay
        self.healthCheckInterval = healthCheckInterval
    }

    deinit {
        state.withLockedValue { $0.task }?.cancel()
    }

    /// What the link does: changes sent and applied, the listening connection lost and back.
    public var events: AnyPublisher<FleetLinkEvent, Never> {
        subject.eraseToAnyPublisher()
    }

    /// Starts sending the client's changes and listening for the others'. Calling it again does nothing.
    public func start() {
        let started = state.withLockedValue { state -> Bool in
            guard state.task == nil else { return false }
            state.subscription = client.sharedChanges.sink { [weak self] change in self?.send(change) }
            return true
        }
        guard started else { return }
        let task = Task { [weak self] in _ = await self?.listen() }
        state.withLockedValue { $0.task = task }
    }

    /// Stops both: changes made from now on stay in this instance, and others' are no longer applied.
    public func stop() async {
        let (task, subscription) = state.withLockedValue { state in
            defer { (state.task, state.subscription) = (nil, nil) }
            return (state.task, state.subscription)
        }
        subscription?.cancel()
        task?.cancel()
        await task?.value
    }

    /// Returns once the link listens (at once if it does).
    public func waitUntilListening() async {
        await withCheckedContinuation { continuation in
            let isListening = state.withLockedValue { state in
                if !state.isListening { state.listeningWaiters.append(continuation) }
                return state.isListening
            }
            if isListening { continuation.resume() }
        }
    }

    // MARK: - Sending

    /// Hands `change` to the cache's connection at once (on the caller's thread, so that the statements reach
    /// the server in the order the changes were made, and before the refetches the change starts). A value
    /// that travels is sent by its save, with its row.
    private func send(_ change: SharedChange) {
        if case .setData(.some) = change.operation { return }
        let (subject, store) = (subject, cache.configuration.storeName)
        let statement: PostgresQuery
        do {
            statement = try FleetMessage(origin: cache.origin, change: change).statement(
                table: cache.configuration.table, sequence: cache.sequence, channel: channel)
        } catch {
            return subject.send(.sendFailed(change, error))
        }
        let logger = cache.link.logger
        cache.link.submit(
            "notification of \(change)", failure: { .writeFailed(path: store, reason: $0) },
            { $0.query(statement, logger: logger).map { _ in () } }
        ) { result in
            switch result {
            case .success: subject.send(.sent(change))
            case .failure(let error): subject.send(.sendFailed(change, error))
            }
        }
    }

    // MARK: - Listening

    /// Listens until stopped, making the connection again after each loss.
    private func listen() async {
        var hasListened = false
        while !Task.isCancelled {
            do {
                try await listenOnce(resuming: hasListened) { hasListened = true }
            } catch {
                if Task.isCancelled { break }
                setListening(false)
                subject.send(.lost(Self.cacheError(error, store: cache.configuration.storeName)))
            }
            if Task.isCancelled { break }
            try? await Task.sleep(for: reconnectDelay)
        }
        setListening(false)
    }

    /// One listening connection, until it is lost or the task is cancelled.
    private func listenOnce(resuming: Bool, listened: () -> Void) async throws {
        let configuration = cache.configuration
        let connection = try await Self.connect(configuration, logger: cache.link.logger)
        let health = watch(connection, timeout: configuration.timeout)
        defer { health.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await connection.listen(on: channel) { notifications in
                    listened()
                    if resuming { client.changesMissed(from: "PostgresFleetLink(\(configuration.storeName))") }
                    setListening(true)
                    subject.send(resuming ? .resumed : .listening)
                    for try await notification in notifications { await receive(notification.payload) }
                }
            } onCancel: {
                connection.close().whenComplete { _ in }
            }
        } catch {
            // A connection is closed (and the close awaited) before it is let go.
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        throw CacheError.unavailable(store: configuration.storeName, reason: "the listening connection ended")
    }

    /// A listening connection, made within the cache's timeout (one made later is closed).
    private static func connect(_ configuration: PostgresCacheConfiguration, logger: Logger) async throws
        -> PostgresConnection
    {
        try await connecting(configuration, logger: logger).get()
    }

    /// `connect`, as a future (the future form of PostgresNIO's `connect`, which an `async` caller cannot pick).
    private static func connecting(_ configuration: PostgresCacheConfiguration, logger: Logger)
        -> EventLoopFuture<PostgresConnection>
    {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let answer = loop.makePromise(of: PostgresConnection.self)
        let timer = loop.scheduleTask(in: .nanoseconds(PostgresLink.nanoseconds(configuration.timeout))) {
            answer.fail(
                CacheError.timedOut(
                    store: configuration.storeName, operation: "connecting to listen",
                    seconds: Double(PostgresLink.nanoseconds(configuration.timeout)) / 1e9))
        }
        PostgresConnection.connect(
            on: loop, configuration: PostgresLink.settings(configuration), id: 2, logger: logger
        ).whenComplete { result in
            timer.cancel()
            switch result {
            case .success(let connection):
                answer.futureResult.whenFailure { _ in connection.close().whenComplete { _ in } }
                answer.succeed(connection)
            case .failure(let error):
                answer.fail(error)
            }
        }
        return answer.futureResult
    }

    /// `SELECT 1` on `connection`, which is closed when it does not answer within `timeout`.
    private static func check(_ connection: PostgresConnection, timeout: Duration, logger: Logger)
        -> EventLoopFuture<Void>
    {
        let check = connection.query("SELECT 1", logger: logger).map { _ in () }
        let timer = connection.eventLoop.scheduleTask(in: .nanoseconds(PostgresLink.nanoseconds(timeout))) {
            connection.close().whenComplete { _ in }
        }
        check.whenComplete { _ in timer.cancel() }
        return check
    }

    /// Checks `connection` every `healthCheckInterval`; one that does not answer within `timeout` is closed,
    /// which ends its listening with an error (the link reports it `lost`).
    private func watch(_ connection: PostgresConnection, timeout: Duration) -> Task<Void, Never> {
        let (interval, logger) = (healthCheckInterval, cache.link.logger)
        return Task {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                guard (try? await Self.check(connection, timeout: timeout, logger: logger).get()) != nil else {
                    connection.close().whenComplete { _ in }
                    return
                }
            }
        }
    }

    /// Applies one notification: a row's value (this instance's too) with its version, another instance's
    /// change with its version; a row's value too large to travel is read from the row.
    private func receive(_ payload: String) async {
        guard let message = FleetMessage.read(payload) else {
            return subject.send(.ignored(reason: "a notification that is not a change: \(payload.prefix(80))"))
        }
        var change = message.change
        // A tag has no row, so no place in a row's order: an invalidation by tag is applied whatever the
        // entries hold.
        let namesTags = change.targets.contains {
            if case .tag = $0 { true } else if case .exactTag = $0 { true } else { false }
        }
        change.version = namesTags ? nil : message.version
        if message.isRowWrite {
            if case .setData(nil) = change.operation, case .exact(let key) = change.targets.first {
                // Too large to travel: the row has it (or a newer value, with its own version).
                // A read that fails leaves the change without its value: the entry is invalidated (with the
                // version), and its next fetch reads the row.
                if let (json, version) = try? await cache.json(of: key) {
                    change = SharedChange(.setData(json: json), [.exact(key)], version: version)
                }
            }
        } else if message.origin == cache.origin {
            return
        }
        client.apply(change)
        subject.send(.applied(change))
    }

    private func setListening(_ isListening: Bool) {
        let waiters = state.withLockedValue { state in
            state.isListening = isListening
            guard isListening else { return [CheckedContinuation<Void, Never>]() }
            defer { state.listeningWaiters = [] }
            return state.listeningWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func cacheError(_ error: any Error, store: String) -> CacheError {
        if let error = error as? CacheError { return error }
        return .unavailable(store: store, reason: PostgresLink.reason(error))
    }
}
