import Foundation
import LoftTesting
import Testing

@testable import Loft

/// Every kind of client event is published with no lock held: a subscriber that calls back into the client
/// from each event, on the thread that publishes it, neither crashes nor deadlocks. (Debug builds also stop any
/// publication made under a lock: `HeldLocks`.)
@Suite(.timeLimit(.minutes(1))) struct ReentrantEventTests {
    struct Garbage: Error {}

    @Test("a subscriber that re-enters the client from every kind of event neither crashes nor deadlocks")
    func reentrantSubscriber() async throws {
        let folder = TemporaryDirectory()
        // A saved call whose record is damaged: resuming reports a persistence failure.
        let first = QueryClient(
            cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler(), isOnline: false)
        Mutation<String, Int>(client: first, options: MutationOptions(mutationKey: ["todos", "add"])) { $0.count }
            .execute(with: "milk")
        await first.waitUntilIdle()
        let saved = try #require(first.mutationCache.journal.records.first)
        let name = try #require(CacheFileName.direct(MutationJournal.key(of: saved.idempotencyKey)))
        try Data("garbage".utf8).write(to: folder.url.appendingPathComponent(name))

        let client = QueryClient(cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler())
        let seen = Locked<Set<String>>([])
        let subscription = client.events.sink { event in
            let kind = "\(event)".split(separator: " ").first.map(String.init) ?? ""
            seen.withLock { _ = $0.insert(kind) }
            // Back into the client, from the publishing thread.
            _ = client.isMutating()
            _ = client.mutations()
            _ = client.resumePausedMutations()
            _ = try? client.getQueryData("todos", as: Int.self)
            _ = client.isFetching()
        }
        client.setMutationDefaults(MutationDefaults<String, Int> { request, _ in request.count }, for: "todos")
        _ = client.resumePausedMutations()
        let query = Query<Void, Int>(key: "todos", behavior: .startImmediately(()), client: client) { 1 }
        await client.waitUntilIdle()
        client.setQueryData(2, for: "todos")
        _ = client.invalidateQueries("todos")
        await client.waitUntilIdle()
        let failing = Mutation<Int, Int>(client: client) { _ in throw Garbage() }
        _ = try? await failing.mutate(1)
        client.removeQueries("todos")
        client.changesMissed(from: "a test")
        await client.waitUntilIdle()
        _ = query
        subscription.cancel()
        let kinds = seen.withLock { $0 }
        for kind in ["added", "updated", "removed", "fetchStarted", "fetchFinished", "persistenceFailed"] {
            #expect(kinds.contains(kind), "\(kind) was published: \(kinds.sorted())")
        }
        #expect(kinds.contains { $0 == "mutation" }, "mutation events were published: \(kinds.sorted())")
        #expect(kinds.contains("changesMissed"))
    }
}
