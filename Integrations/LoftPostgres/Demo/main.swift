import Foundation
import Loft
import LoftPostgres

// The demo of LoftPostgres: several instances of a small service (each a process of this executable, with
// its own QueryClient on one shared PostgreSQL table) are hammered with concurrent requests for overlapping
// keys. It prints the upstream calls per key, the requests the table answered, and the time from an
// invalidation on one instance to its arrival on the others.
//
//   LoftPostgresDemo [--instances 3] [--requests 1000] [--keys 100] [--json]
//   LoftPostgresDemo takeover [--json]     the instance fetching a key is killed (SIGKILL); another takes over
//   LoftPostgresDemo service [--seconds 5] [--rounds 1000] [--json]
//                                          3 HTTP instances loaded by wrk, then invalidation latency
//                                          (median, p99) beside a bare NOTIFY to 3 listeners
//   LoftPostgresDemo undecodable [--json]  a row of another type: a miss for every instance, replaced once
//   LoftPostgresDemo converge [--json]     instances write the same keys at once; each ends with the rows' values
//   LoftPostgresDemo hang --server-dir DIR [--json]
//                                          the server (made by scripts/postgres-local in DIR) is frozen with
//                                          SIGSTOP for 8 s while the instances are pinged every 100 ms
//
// The server is LOFT_POSTGRES_URL (scripts/postgres-local start prints it). The demo's table is dropped at
// the end; its instances end with it (they watch their parent).

let arguments = Array(CommandLine.arguments.dropFirst())
signal(SIGPIPE, SIG_IGN)  // a pipe to an instance that was killed fails its write, not this process

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return Int(arguments[index + 1]) ?? value
}

func text(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

if arguments.first == "serve", arguments.count == 3 {
    let parent = getppid()
    Thread.detachNewThread {
        while getppid() == parent { usleep(100_000) }
        exit(0)
    }
    do {
        try await Service(url: arguments[1], table: arguments[2]).run()
    } catch {
        print("failed \(error)")
        exit(1)
    }
    exit(0)
}

if arguments.first == "instance", (3...4).contains(arguments.count) {
    // An instance ends when its parent does, whatever it is doing (waiting for a server that is not there).
    let parent = getppid()
    Thread.detachNewThread {
        while getppid() == parent { usleep(100_000) }
        exit(0)
    }
    let timeout = Duration.milliseconds(arguments.count == 4 ? Int(arguments[3]) ?? 5_000 : 5_000)
    do {
        try await Instance(url: arguments[1], table: arguments[2], timeout: timeout).run()
    } catch {
        print("failed \(error)")
        exit(1)
    }
    exit(0)
}

guard let url = ProcessInfo.processInfo.environment["LOFT_POSTGRES_URL"], !url.isEmpty else {
    print("Set LOFT_POSTGRES_URL: eval \"$(scripts/postgres-local start)\" starts a throwaway server.")
    exit(2)
}
let table = "demo_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
let json = arguments.contains("--json")
let shared: PostgresQueryCache
do {
    // The server is asked once before any instance starts: a wrong URL or no server is said at once.
    shared = try PostgresQueryCache(url: url, table: table, timeout: .seconds(3))
    _ = try await shared.get(Int.self, for: ["demo", "reachable"])
} catch {
    print("The demo cannot use the server at LOFT_POSTGRES_URL: \(error)")
    exit(1)
}
var failed = false
do {
    switch arguments.first {
    case "takeover":
        try await Scenarios.takeover(url: url, table: table, json: json)
    case "service":
        try await ServiceScenario.run(
            url: url, table: table, seconds: option("--seconds", default: 5),
            rounds: option("--rounds", default: 1_000),
            json: json)
    case "undecodable":
        try await Scenarios.undecodable(url: url, table: table, json: json)
    case "converge":
        try await Scenarios.converge(url: url, table: table, json: json)
    case "hang":
        guard let directory = text("--server-dir") else {
            print("hang needs --server-dir DIR, the directory of a server made by scripts/postgres-local")
            exit(2)
        }
        try await Scenarios.hang(url: url, table: table, serverDirectory: directory, json: json)
    default:
        try await Scenarios.hammer(
            url: url, table: table, instances: option("--instances", default: 3),
            requests: option("--requests", default: 1000), keys: option("--keys", default: 100), json: json)
    }
} catch {
    print("The demo failed: \(error)")
    failed = true
}
do {
    try await shared.dropTable()
} catch {
    print("The demo's table \(table) could not be dropped: \(error)")
}
exit(failed ? 1 : 0)
