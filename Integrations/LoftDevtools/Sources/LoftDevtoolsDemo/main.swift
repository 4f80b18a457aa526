// A client with a few queries, shown in the devtools: what a user opens first, and what the browser test
// drives.
//
//     swift run LoftDevtoolsDemo [--port N] [--keys N]
//
// It prints `devtools URL`, then a line `fetched KEY` each time its fetcher runs. Commands on its standard
// input, one per line: `refetch KEY` (a key's first part, or its JSON), `offline`, `online`, `quit`.
import Foundation
import Loft
import LoftDevtools

/// Writes `line` at once (a test reads it while the demo runs).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct User: Codable, Sendable {
    let id: Int
    let name: String
}

let arguments = CommandLine.arguments
func option(_ name: String) -> Int? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
}

let client = QueryClient()
/// The server the queries fetch from: 150 ms away, and it says each time it is asked.
@Sendable func server<Value: Sendable>(_ key: QueryKey, _ value: Value) async throws -> Value {
    say("fetched \(key)")
    try await Task.sleep(for: .milliseconds(150))
    return value
}

let options = QueryOptions<[User]>(staleTime: .seconds(30))
let users = Query<Void, [User]>(key: "users", behavior: .startImmediately(()), options: options, client: client) {
    try await server("users", [User(id: 1, name: "Ada"), User(id: 2, name: "Grace"), User(id: 3, name: "Linus")])
}
let profiles = (1...3).map { id in
    Query<Void, User>(
        key: ["users", id], behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(10)),
        client: client
    ) { try await server(["users", id], User(id: id, name: "user \(id)")) }
}
let todos = (1...5).map { id in
    Query<Void, String>(key: ["todos", id], behavior: .startImmediately(()), client: client) {
        try await server(["todos", id], "todo \(id)")
    }
}
for index in 0..<(option("--keys") ?? 0) { client.setQueryData(index, for: ["item", index]) }
let add = Mutation<String, Int>(
    client: client, options: MutationOptions(scope: "todos", mutationKey: ["todos", "add"])
) {
    try await server(["todos", "add"], $0.count)
}
add.execute(with: "buy milk")

let devtools: LoftDevtools
do {
    devtools = try await LoftDevtools.mount(on: client, options: LoftDevtools.Options(port: option("--port") ?? 0))
} catch {
    say("failed: \(error)")
    exit(1)
}
say("devtools \(devtools.url.absoluteString)")

while let line = readLine() {
    let words = line.split(separator: " ", maxSplits: 1).map(String.init)
    switch words.first {
    case "refetch" where words.count == 2:
        let key =
            (try? JSONDecoder().decode(QueryKey.self, from: Data(words[1].utf8))) ?? QueryKey(value: words[1])
        client.refetchQueries(key, exact: true)
    case "offline": client.setOnline(false)
    case "online": client.setOnline(true)
    case "quit": break
    default: say("unknown command: \(line)")
    }
    if words.first == "quit" { break }
}
await devtools.unmount()
withExtendedLifetime((users, profiles, todos, add)) {}
