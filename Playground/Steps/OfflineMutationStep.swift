import Foundation
import Loft

/// The server of the offline step: it counts what it accepted, by idempotency key.
private final class TodoServer: Sendable {
    private let accepted = Locked<[String]>([])

    var log: [String] { accepted.withLock { $0 } }

    func add(_ todo: String, _ call: MutationCall) -> Int {
        accepted.withLock { $0.append("\(todo) (key \(call.idempotencyKey.prefix(8))…)") }
        return todo.count
    }
}

let offlineMutationStep = TourStep(
    title: "Offline mutation: paused, saved, the app restarts, it resumes once back online"
) { tour in
    let folder = tour.cacheDirectory.appendingPathComponent("mutations-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = TodoServer()
    let addKey: QueryKey = ["todos", "add"]
    var lines: [String] = []

    // First run: offline; the call is paused and saved in the persistent cache.
    let before = QueryClient(cache: JSONFileQueryCache(directory: folder), isOnline: false)
    let add = Mutation<String, Int>(
        client: before, options: MutationOptions(scope: "todos", mutationKey: addKey)
    ) { todo, call in server.add(todo, call) }
    add.execute(with: "buy milk")
    await before.waitUntilIdle()
    lines.append("offline: \(before.mutations().map(\.description).joined(separator: ", "))")

    // The restart: a new client on the same folder finds the call by its mutation key.
    let after = QueryClient(cache: JSONFileQueryCache(directory: folder), isOnline: false)
    after.setMutationDefaults(
        MutationDefaults<String, Int>(options: MutationOptions(scope: "todos")) { todo, call in server.add(todo, call)
        },
        for: addKey)
    let resumed = after.resumePausedMutations()
    await after.waitUntilIdle()
    lines.append("after the restart, still offline: \(resumed) call resumed, server saw \(server.log.count)")
    after.setOnline(true)
    await after.waitUntilIdle()  // the resumed call runs, now online, and settles
    lines.append("back online: the server accepted \(server.log.joined(separator: ", "))")
    lines.append("resuming again sends nothing: \(after.resumePausedMutations()) resumed")
    return lines
}
