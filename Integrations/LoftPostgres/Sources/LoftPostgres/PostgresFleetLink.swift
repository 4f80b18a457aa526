import Foundation
import Loft
import NIOConcurrencyHelpers
import PostgresNIO

/// Carries one instance's cache changes to every other instance of a service, over PostgreSQL's
/// `LISTEN`/`NOTIFY`: an `invalidateQueries`, `removeQueries` or `setQueryData` on one instance reaches the
/// clients of all the others within one notification round trip.
///
/// ```swift
/// let link = PostgresFleetLink(client: client, cache: shared)
/// link.start()
/// await client.invalidateQueries(["user", 42]).settled()  // every instance's ["user", 42] is now stale
/// ```
///
/// **Behavior**
/// - What the client's caller changes (`QueryClient.sharedChanges`) is sent as a notification on the channel
///   `<table>_changes`, in the order it was made, on the cache's connection; the others apply it
///   (`QueryClient.apply(_:)`) with the same targets and filter (a filter's predicate cannot travel: they act
///   on every entry the rest of the filter matches). An instance skips its own notifications, and a change it
///   applied is not sent again: loops are impossible.
/// - An invalidation by key or prefix also marks the rows of those keys in the shared table stale, in the same
///   statement as the notification: an instance that refetches does not get the old row back from the table
///   or from a `PostgresSingleFlight`. Tags are not in the table: an invalidation by tag reaches every client
///   but leaves the rows as they are.
/// - A `setQueryData` value travels as JSON; a value larger than a notification can hold (8,000 bytes) or not
///   `Encodable` does not, and the others invalidate the key instead.
/// - Delivery is at most once: a change sent while an instance's listening connection is down does not
///   reach it. When the link listens again it tells the client (`QueryClient.changesMissed(from:)`): every
///   entry becomes stale and the active ones refetch, and the client's events say `changesMissed`.
/// - It runs from `start()` until `stop()` (which it needs: the listening task keeps the link alive), with
///   one connection of its own for listening; changes go out on the cache's connection.
/// - A lost listening connection is made again every `reconnectDelay` until it is back. A change that cannot
///   be sent (the server is down) is reported as `FleetLinkEvent.sendFailed`, not retried.
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
    /// This instance, in the notifications it sends.
    let origin = UUID()
    private let state = NIOLockedValueBox(State())
    private let subject = PassthroughSubject<FleetLinkEvent, Never>()

    /// A link between `client` and the other instances that share `cache`'s table; it does nothing until
    /// `start()`.
    public init(client: QueryClient, cache: PostgresQueryCache, reconnectDelay: Duration = .milliseconds(200)) {
        self.client = client
        self.cache = cache
        self.channel = cache.configuration.table + "_changes"
        self.reconnectDelay = reconnectDelay
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
    /// the server in the order the changes were made, and before the refetches the change starts).
    private func send(_ change: SharedChange) {
        let (subject, store) = (subject, cache.configuration.storeName)
        let statement: PostgresQuery
        do {
            let payload = try FleetMessage(origin: origin, change: change).payload()
            statement = try FleetMessage.statement(
                publishing: payload, on: channel, for: change, table: cache.configuration.table)
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
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(),
            configuration: PostgresLink.settings(cache.configuration), id: 2, logger: cache.link.logger
        ).get()
        do {
            try await withTaskCancellationHandler {
                try await connection.listen(on: channel) { notifications in
                    listened()
                    if resuming { client.changesMissed(from: "PostgresFleetLink(\(cache.configuration.storeName))") }
                    setListening(true)
                    subject.send(resuming ? .resumed : .listening)
                    for try await notification in notifications { receive(notification.payload) }
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
        throw CacheError.unavailable(store: cache.configuration.storeName, reason: "the listening connection ended")
    }

    private func receive(_ payload: String) {
        guard let message = FleetMessage.read(payload) else {
            return subject.send(.ignored(reason: "a notification that is not a change: \(payload.prefix(80))"))
        }
        guard message.origin != origin else { return }
        client.apply(message.change)
        subject.send(.applied(message.change))
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
