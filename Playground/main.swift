// The tour a new user runs first: `swift run Playground`.
//
//     swift run Playground                 # against the built-in demo API
//     swift run Playground --api URL       # against a real JSON API over HTTP (see HTTPAPI.swift)
//     swift run Playground --signals       # the Signals layer underneath
//     swift run Playground --cache-dir DIR # where the persisted-cache step saves (default: a temporary folder)

import Foundation
import Loft

let arguments = CommandLine.arguments
if arguments.contains("--signals") {
    print("Signals: the reactive layer under Loft.\n")
    for (number, step) in signalsTour.enumerated() {
        print("\(number + 1). \(step.title)")
        for line in step.run() { print("   \(line)") }
        print()
    }
    exit(0)
}

// One client for the whole tour; the demo API's latency runs on its scheduler.
let client = QueryClient()
let api: any TourAPI
if let flag = arguments.firstIndex(of: "--api") {
    guard arguments.indices.contains(flag + 1), let url = URL(string: arguments[flag + 1]), url.scheme != nil else {
        print("Usage: swift run Playground --api http://host:port/path")
        exit(2)
    }
    let http = HTTPAPI(base: url)
    do {
        try await http.checkReachable()
    } catch {
        print("Cannot reach \(url.absoluteString): \(error.localizedDescription)")
        print("Is the server running? It must serve users.json and users/{id}/repos.json.")
        exit(1)
    }
    api = http
} else {
    api = DemoAPI(scheduler: client.scheduler)
}

var cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("loft-playground-cache")
if let flag = arguments.firstIndex(of: "--cache-dir") {
    guard arguments.indices.contains(flag + 1) else {
        print("Usage: swift run Playground --cache-dir /path/to/folder")
        exit(2)
    }
    cacheDirectory = URL(fileURLWithPath: arguments[flag + 1])
}

let tour = TourContext(api: api, client: client, cacheDirectory: cacheDirectory)
print("Loft Playground: a tour of queries against \(api.name).\n")
do {
    for (number, step) in queryTour.enumerated() {
        print("\(number + 1). \(step.title)")
        for line in try await step.run(tour) { print("   \(line)") }
        print()
    }
} catch {
    print("The tour stopped: \(error)")
    exit(1)
}
print(
    "The cache now (CacheInspector, the terminal's devtools). An entry nobody observes is stale only when it was\n"
        + "invalidated or has no data: no query's staleTime applies to it.\n")
print(CacheInspector(client: client).render())
print("\nNext: `swift run Playground --signals` for the layer underneath, the README for every feature, `swift test`.")
