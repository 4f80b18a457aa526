import Foundation
import Loft

/// The tour a new user runs first (`swift run Playground`), as a library, so that an add-on runs the same tour
/// with its own provider (LoftSQLite's `LoftSQLitePlayground --cache sqlite`).
///
///     swift run Playground                 # against the built-in demo API
///     swift run Playground --api URL       # against a real JSON API over HTTP (see HTTPAPI.swift)
///     swift run Playground --signals       # the Signals layer underneath
///     swift run Playground --cache-dir DIR # where the persistence steps save (default: a temporary folder)
///     swift run Playground --cache NAME    # which provider they save with (default: json)
public enum PlaygroundTour {
    /// A provider the persistence steps can save with, by the name `--cache` takes.
    public struct Cache: Sendable {
        /// What `--cache` calls it.
        public let name: String
        /// Opens the provider in a folder of its own (the folder may not exist yet).
        public let open: @Sendable (URL) throws -> any QueryCacheType

        /// A provider named `name`, opened in a folder by `open`.
        public init(name: String, open: @escaping @Sendable (URL) throws -> any QueryCacheType) {
            self.name = name
            self.open = open
        }

        /// JSON files (`JSONFileQueryCache`), the root package's disk provider.
        public static let json = Cache(name: "json") { JSONFileQueryCache(directory: $0) }
    }

    /// A tool shown beside the tour (`--devtools`): started on the tour's client before the first step, it
    /// gives the address to print and how to stop it.
    public typealias Attachment =
        @Sendable (QueryClient) async throws -> (address: String, stop: @Sendable () async -> Void)

    /// Runs the tour as `arguments` ask, with `caches` to choose from (the first is the default) and, with
    /// `--devtools`, `devtools` mounted on its client; returns the process's exit status.
    public static func run(arguments: [String], caches: [Cache] = [.json], devtools: Attachment? = nil) async -> Int32 {
        if arguments.contains("--signals") {
            print("Signals: the reactive layer under Loft.\n")
            for (number, step) in signalsTour.enumerated() {
                print("\(number + 1). \(step.title)")
                for line in step.run() { print("   \(line)") }
                print()
            }
            return 0
        }

        // One client for the whole tour; the demo API's latency runs on its scheduler.
        let client = QueryClient()
        let api: any TourAPI
        if let flag = arguments.firstIndex(of: "--api") {
            guard arguments.indices.contains(flag + 1), let url = URL(string: arguments[flag + 1]), url.scheme != nil
            else {
                print("Usage: swift run Playground --api http://host:port/path")
                return 2
            }
            let http = HTTPAPI(base: url)
            do {
                try await http.checkReachable()
            } catch {
                print("Cannot reach \(url.absoluteString): \(error.localizedDescription)")
                print("Is the server running? It must serve users.json and users/{id}/repos.json.")
                return 1
            }
            api = http
        } else {
            api = DemoAPI(scheduler: client.scheduler)
        }

        var cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("loft-playground-cache")
        if let flag = arguments.firstIndex(of: "--cache-dir") {
            guard arguments.indices.contains(flag + 1) else {
                print("Usage: swift run Playground --cache-dir /path/to/folder")
                return 2
            }
            cacheDirectory = URL(fileURLWithPath: arguments[flag + 1])
        }

        guard var cache = caches.first else { return 2 }
        if let flag = arguments.firstIndex(of: "--cache") {
            let name = arguments.indices.contains(flag + 1) ? arguments[flag + 1] : ""
            guard let chosen = caches.first(where: { $0.name == name }) else {
                if name == "sqlite" {
                    print("The SQLite provider is the LoftSQLite add-on, outside the root package (it needs GRDB):")
                    print("  swift run --package-path Integrations/LoftSQLite LoftSQLitePlayground --cache sqlite")
                } else {
                    print("Usage: --cache \(caches.map(\.name).joined(separator: "|"))")
                }
                return 2
            }
            cache = chosen
        }

        var stopDevtools: (@Sendable () async -> Void)?
        if arguments.contains("--devtools") {
            guard let devtools else {
                print("The devtools are the LoftDevtools add-on, outside the root package (it needs Hummingbird):")
                print("  swift run --package-path Integrations/LoftDevtools LoftDevtoolsPlayground --devtools")
                return 2
            }
            do {
                let (address, stop) = try await devtools(client)
                print("Devtools: open \(address) in a browser to watch the tour's cache live.\n")
                stopDevtools = stop
            } catch {
                print("The devtools could not start: \(error)")
                return 1
            }
        }

        let tour = TourContext(api: api, client: client, cacheDirectory: cacheDirectory, cache: cache)
        print("Loft Playground: a tour of queries against \(api.name), saving with the \(cache.name) provider.\n")
        do {
            for (number, step) in queryTour.enumerated() {
                print("\(number + 1). \(step.title)")
                for line in try await step.run(tour) { print("   \(line)") }
                print()
            }
        } catch {
            print("The tour stopped: \(error)")
            return 1
        }
        print(
            "The cache now (CacheInspector, the terminal's devtools). An entry nobody observes is stale only when it was\n"
                + "invalidated or has no data: no query's staleTime applies to it.\n")
        print(CacheInspector(client: client).render())
        if let stopDevtools {
            print("\nThe devtools stay open until you press Return (or the input ends).")
            _ = readLine()
            await stopDevtools()
        }
        print(
            "\nNext: `swift run Playground --signals` for the layer underneath, the README for every feature, "
                + "`swift test`.")
        return 0
    }
}
