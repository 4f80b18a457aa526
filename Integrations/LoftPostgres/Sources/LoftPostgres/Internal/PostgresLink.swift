import Loft
import NIOConcurrencyHelpers
import PostgresNIO

/// The connection of a `PostgresQueryCache`: made when a call first needs it and again after it was lost, with
/// the schema checked on each new one; a call waits for it at most the configured timeout.
///
/// **Behavior**
/// - Concurrent calls share one connection (the server answers them in order); while it is being made they
///   wait for the same attempt.
/// - A failed attempt, a closed connection or a timed-out call drops the connection: the next call makes a
///   new one, so the cache recovers by itself once the server is back.
/// - Calls are awaited (or handed over with a completion): no thread waits for the server.
final class PostgresLink: Sendable {
    private struct State {
        var connecting: EventLoopFuture<PostgresConnection>?
        var generation = 0
    }

    let configuration: PostgresCacheConfiguration
    private let loop: any EventLoop
    private let group: MultiThreadedEventLoopGroup
    private let state = NIOLockedValueBox(State())
    let logger: Logger

    init(_ configuration: PostgresCacheConfiguration) {
        self.configuration = configuration
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
        var logger = Logger(label: "loft.postgres")
        logger.logLevel = .critical
        self.logger = logger
    }

    deinit {
        let (connecting, group) = (state.withLockedValue { $0.connecting }, group)
        guard let connecting else {
            group.shutdownGracefully { _ in }
            return
        }
        connecting.whenComplete { result in
            guard case .success(let connection) = result else { return group.shutdownGracefully { _ in } }
            connection.close().whenComplete { _ in group.shutdownGracefully { _ in } }
        }
    }

    private var store: String { configuration.storeName }

    /// Runs `body` on the connection and awaits its result, suspending the calling task (no thread waits).
    ///
    /// - Throws: `CacheError.timedOut` after the configured timeout, `.unavailable` when the server cannot be
    ///   reached or the connection was lost, and `failure(reason)` for an error the server answered.
    func perform<T: Sendable>(
        _ operation: String, failure: @escaping @Sendable (String) -> CacheError,
        _ body: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<T>
    ) async throws(CacheError) -> T {
        let result = await withCheckedContinuation { continuation in
            submit(operation, failure: failure, body) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Hands `body` to the connection now and calls `completion` with its result (at most the timeout later),
    /// without waiting: statements submitted one after the other reach the server in that order.
    func submit<T: Sendable>(
        _ operation: String, failure: @escaping @Sendable (String) -> CacheError,
        _ body: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<T>,
        completion: @escaping @Sendable (Result<T, CacheError>) -> Void
    ) {
        let (generation, connection) = current()
        let answer = loop.makePromise(of: Optional<T>.self)
        let timer = loop.scheduleTask(in: .nanoseconds(Self.nanoseconds(configuration.timeout))) {
            answer.succeed(nil)
        }
        connection.flatMap(body).map { Optional($0) }.cascade(to: answer)
        answer.futureResult.whenComplete { [self] result in
            timer.cancel()
            let outcome: Result<T, any Error>? =
                switch result {
                case .success(let value): value.map { .success($0) }
                case .failure(let error): .failure(error)
                }
            completion(
                Result { () throws(CacheError) in try conclude(operation, generation, outcome, failure: failure) })
        }
    }

    /// The value of a call, or its error: nil (no answer in time) is `.timedOut`.
    private func conclude<T>(
        _ operation: String, _ generation: Int, _ outcome: Result<T, any Error>?, failure: (String) -> CacheError
    ) throws(CacheError) -> T {
        switch outcome {
        case .none:
            drop(generation, closing: true)
            let seconds = Double(Self.nanoseconds(configuration.timeout)) / 1e9
            throw .timedOut(store: store, operation: operation, seconds: seconds)
        case .success(let value):
            return value
        case .failure(let error):
            if let server = Self.serverMessage(error) { throw failure(server) }
            drop(generation, closing: true)
            throw .unavailable(store: store, reason: Self.reason(error))
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// The connection of the current generation, made now if there is none.
    private func current() -> (Int, EventLoopFuture<PostgresConnection>) {
        state.withLockedValue { state in
            if let connecting = state.connecting { return (state.generation, connecting) }
            state.generation += 1
            let generation = state.generation
            let connecting = connect()
            state.connecting = connecting
            connecting.whenComplete { [weak self] result in
                switch result {
                case .failure:
                    self?.drop(generation, closing: false)
                case .success(let connection):
                    connection.closeFuture.whenComplete { [weak self] _ in self?.drop(generation, closing: false) }
                }
            }
            return (generation, connecting)
        }
    }

    /// How to connect to the server of `configuration`, waiting at most its timeout.
    static func settings(_ configuration: PostgresCacheConfiguration) -> PostgresConnection.Configuration {
        var settings = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: .disable)
        settings.options.connectTimeout = .nanoseconds(nanoseconds(configuration.timeout))
        return settings
    }

    private func connect() -> EventLoopFuture<PostgresConnection> {
        let (schema, logger) = (CacheTableSchema(table: configuration.table), logger)
        return PostgresConnection.connect(
            on: loop, configuration: Self.settings(configuration), id: 1, logger: logger
        )
        .flatMap { connection in
            schema.prepare(on: connection, logger: logger)
                .map { connection }
                .flatMapError { error in connection.close().flatMapThrowing { throw error } }
        }
        .flatMapErrorThrowing { error in throw ConnectFailure(underlying: error) }
    }

    /// Forgets the connection of `generation` (a newer one stays), closing it if asked.
    private func drop(_ generation: Int, closing: Bool) {
        let dropped = state.withLockedValue { state -> EventLoopFuture<PostgresConnection>? in
            guard state.generation == generation, let connecting = state.connecting else { return nil }
            state.connecting = nil
            return connecting
        }
        guard closing, let dropped else { return }
        dropped.whenSuccess { connection in connection.close().whenComplete { _ in } }
    }

    /// The server's own message of `error`, when the server answered with an error.
    private static func serverMessage(_ error: any Error) -> String? {
        guard let error = error as? PSQLError, error.code == .server else { return nil }
        let message = error.serverInfo?[.message] ?? "unknown error"
        let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
        return message + state
    }

    /// A one-line reason for a connection failure.
    static func reason(_ error: any Error) -> String {
        if let failure = error as? ConnectFailure { return reason(failure.underlying) }
        guard let error = error as? PSQLError else { return "\(error)" }
        if error.code == .server {
            return "the server refused: " + (error.serverInfo?[.message] ?? "unknown error")
        }
        return error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }
}

/// A failure to connect or to prepare the schema: the store is unavailable, whatever the server said.
private struct ConnectFailure: Error {
    let underlying: any Error
}
