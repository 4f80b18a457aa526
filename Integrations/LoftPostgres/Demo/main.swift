import Foundation

// The demo of LoftPostgres: several instances of a small service (each a process of this executable, with
// its own QueryClient on one shared PostgreSQL table) are hammered with concurrent requests for overlapping
// keys. It prints the upstream calls per key, the requests the table answered, and the time from an
// invalidation on one instance to its arrival on the others.
//
//   LoftPostgresDemo [--instances 3] [--requests 1000] [--keys 100] [--json]
//   LoftPostgresDemo takeover [--json]     the instance fetching a key is killed (SIGKILL); another takes over
//
// The server is LOFT_POSTGRES_URL (scripts/postgres-local start prints it).

let arguments = Array(CommandLine.arguments.dropFirst())
signal(SIGPIPE, SIG_IGN)  // a pipe to an instance that was killed fails its write, not this process

func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return Int(arguments[index + 1]) ?? value
}

if arguments.first == "instance", arguments.count == 3 {
    do {
        try await Instance(url: arguments[1], table: arguments[2]).run()
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
do {
    if arguments.first == "takeover" {
        try await Scenarios.takeover(url: url, table: table, json: json)
    } else {
        try await Scenarios.hammer(
            url: url, table: table, instances: option("--instances", default: 3),
            requests: option("--requests", default: 1000), keys: option("--keys", default: 100), json: json)
    }
} catch {
    print("The demo failed: \(error)")
    exit(1)
}
