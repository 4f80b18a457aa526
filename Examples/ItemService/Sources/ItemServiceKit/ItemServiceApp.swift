import Foundation
import Hummingbird
import Loft
import LoftDevtools
import LoftObservability
import LoftPostgres
import LoftServiceLifecycle
import Logging
import Prometheus
import ServiceLifecycle

/// The service assembled: its routes over the chosen store, `/metrics`, `/health`, the devtools behind a token,
/// the client and the fleet link when `DATABASE_URL` is set, all in one service group that stops on SIGTERM or
/// SIGINT: the devtools' streams close, the requests in flight finish, the client's writes are flushed, the
/// process exits.
public enum ItemServiceApp {
    /// Serves until the process is told to stop; prints `ready PORT` once it listens.
    public static func run(_ configuration: ServiceConfiguration) async throws {
        var logger = Logger(label: "item-service")
        logger.logLevel = .warning
        let upstream = HTTPUpstream(baseURL: configuration.upstream, timeout: configuration.upstreamTimeout)
        let registry = PrometheusCollectorRegistry()
        let router = Router()
        router.get("health") { _, _ in "ok" }
        router.get("metrics") { _, _ in ItemRoutes.text(registry.emitToString(), status: .ok) }

        var before: [any Service] = []
        var after: [any Service] = []
        var telemetry: LoftTelemetry?
        var link: PostgresFleetLink?
        var follower: QueryClient?
        switch configuration.store {
        case .actor:
            ItemRoutes.add(to: router, store: ActorItemStore(upstream: upstream, staleTime: configuration.staleTime))
        case .loft:
            let made = try makeClient(configuration)
            link = made.link
            let client = made.client
            // The host's connectivity and memory pressure: a pressure warning trims the idle items to half the
            // budget, critical drops them all (a failing source is an event, logged by the telemetry).
            client.follow(.host)
            follower = client
            ItemRoutes.add(
                to: router,
                store: LoftItemStore(client: client, upstream: upstream))
            before.append(QueryClientService(client: client))
            if configuration.telemetry {
                telemetry = LoftTelemetry(
                    client: client,
                    options: LoftTelemetry.Options(
                        logger: logger, metrics: PrometheusMetricsFactory(registry: registry)))
                let token = configuration.devtoolsToken ?? UUID().uuidString
                after.append(LoftDevtools.mount(on: client, at: router.group("devtools"), token: token))
                FileHandle.standardOutput.write(Data("devtools: /devtools/?token=\(token)\n".utf8))
            }
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                FileHandle.standardOutput.write(
                    Data("ready \(channel.localAddress?.port ?? configuration.port)\n".utf8))
            }, logger: logger)
        // Stopped in the reverse order: the devtools' streams, then the server (its requests finish), then the
        // client (its writes flushed).
        let group = ServiceGroup(
            configuration: .init(
                services: before.map { .init(service: $0) } + [.init(service: app)] + after.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        follower?.stopFollowing()
        await link?.stop()
        withExtendedLifetime(telemetry) {}
    }

    /// The client: items fresh for `staleTime`, kept `gcTime` once unused, within the memory budget; on the
    /// PostgreSQL table shared by the fleet when `DATABASE_URL` is set (a row fresher than `staleTime` answers
    /// instead of the upstream, and changes reach the other instances through the link).
    static func makeClient(_ configuration: ServiceConfiguration) throws -> (
        client: QueryClient, link: PostgresFleetLink?
    ) {
        let defaults = QueryDefaults(
            staleTime: .duration(configuration.staleTime), gcTime: .duration(configuration.gcTime))
        let budget = configuration.budget.map { MemoryBudget.entries($0, mutationCalls: 1_000) }
        guard let url = configuration.databaseURL else {
            return (QueryClient(defaults: defaults, memoryBudget: budget), nil)
        }
        let cache = try PostgresQueryCache(url: url, table: "items_cache")
        let client = QueryClient(
            cache: cache,
            cacheConfig: QueryCacheConfig(
                invalidationPolicy: .expiresAfter(configuration.staleTime), usagePolicy: .useInsteadOfFetching),
            defaults: defaults, memoryBudget: budget)
        let link = PostgresFleetLink(client: client, cache: cache)
        link.start()
        return (client, link)
    }
}
