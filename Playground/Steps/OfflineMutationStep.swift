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
    title: "Offline mutations: paused, saved, the app restarts, they resume once back online (the list is live)"
) { tour in
    let folder = tour.cacheDirectory.appendingPathComponent("mutations-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = TodoServer()
    let addKey: QueryKey = ["todos", "add"]
    let lines = Locked<[String]>([])

    /// Shows the pending saves of `client` live: each change of the list is printed as it is published.
    func followPending(of client: QueryClient, as name: String) -> (MutationList<String>, Subscription) {
        let pending = MutationList(matching: MutationFilter(key: addKey, status: .pending), client: client) {
            "\($0.request(as: String.self) ?? "?")\($0.isPaused ? " (paused)" : "")"
        }
        let subscription = pending.callsPublisher.sink { calls in
            lines.withLock { $0.append("  \(name) pending saves: [\(calls.joined(separator: ", "))]") }
        }
        return (pending, subscription)
    }

    // First run: offline; the two saves are paused and saved in the persistent cache.
    let before = QueryClient(cache: try tour.cache.open(folder), isOnline: false)
    let (listBefore, watchingBefore) = followPending(of: before, as: "before the restart,")
    let add = Mutation<String, Int>(
        client: before, options: MutationOptions(scope: "todos", mutationKey: addKey)
    ) { todo, call in server.add(todo, call) }
    add.execute(with: "buy milk")
    add.execute(with: "walk the dog")
    await before.waitUntilIdle()
    withExtendedLifetime(listBefore) { watchingBefore.cancel() }

    // The restart: a new client on the same folder finds the calls by their mutation key (defaults match by
    // key prefix: these serve every key under "todos").
    let after = QueryClient(cache: try tour.cache.open(folder), isOnline: false)
    let (listAfter, watchingAfter) = followPending(of: after, as: "after the restart,")
    after.setMutationDefaults(MutationDefaults<String, Int> { todo, call in server.add(todo, call) }, for: "todos")
    let resumed = after.resumePausedMutations()
    await after.waitUntilIdle()
    lines.withLock {
        $0.append("after the restart, still offline: \(resumed) calls resumed, the server saw \(server.log.count)")
    }
    after.setOnline(true)
    await after.waitUntilIdle()  // the resumed calls run in their scope's order, now online, and settle
    withExtendedLifetime(listAfter) { watchingAfter.cancel() }
    lines.withLock {
        $0.append("back online: the server accepted \(server.log.joined(separator: ", "))")
        $0.append("resuming again sends nothing: \(after.resumePausedMutations()) resumed")
    }
    return lines.withLock { $0 }
}
