import Foundation
import LoftTesting
import Testing

@testable import Loft

/// Point 6 of the day-one API: the optimistic recipe (cancel the queries the optimistic write touches, write,
/// roll back on error, invalidate on settle) ends with the server's truth, in memory and on disk, when a close
/// and a create run concurrently and a list refetch that started before the server closed the issue is still
/// in flight.
@Suite struct OptimisticRaceTests {
    struct Issue: Codable, Equatable, Sendable {
        let id: Int
        let title: String
        var isClosed = false
    }

    /// A server whose every answer waits for the test: a list answers with the issues as they were when it was
    /// asked (a response computed before a later change).
    final class Server: Sendable {
        let issues = Locked([Issue(id: 1, title: "crash on launch")])
        let listGate = ScriptedFetcher<Void, Void>(.hang())
        let createGate = ScriptedFetcher<String, Void>(.hang())
        let closeGate = ScriptedFetcher<Int, Void>(.hang())

        func list() async throws -> [Issue] {
            let answer = issues.withLock { $0 }
            try await listGate.fetch(())
            return answer
        }

        func create(_ title: String) async throws -> Issue {
            try await createGate.fetch(title)
            return issues.withLock { issues in
                let issue = Issue(id: issues.count + 1, title: title)
                issues.append(issue)
                return issue
            }
        }

        func close(_ id: Int) async throws -> Issue {
            try await closeGate.fetch(id)
            return issues.withLock { issues in
                guard let index = issues.firstIndex(where: { $0.id == id }) else { return Issue(id: id, title: "") }
                issues[index].isClosed = true
                return issues[index]
            }
        }
    }

    @Test(
        "a close and a create run concurrently: the list ends as the server has it, in memory and on disk",
        .timeLimit(.minutes(1)))
    func closeAndCreateEndWithTheServersTruth() async throws {
        let folder = TemporaryDirectory()
        let harness = TestQueryClient(cache: JSONFileQueryCache(directory: folder.url))
        let client = harness.client
        let server = Server()
        let issues = Query<Void, [Issue]>(key: "issues", behavior: .startImmediately(()), client: client) {
            try await server.list()
        }
        await server.listGate.waitForCalls(1)
        server.listGate.release(returning: ())
        await client.waitUntilIdle()

        // The recipe: cancel, write, roll back on error, invalidate on settle.
        let close = Mutation<Int, Issue>(
            client: client,
            options: MutationOptions(
                onMutate: { id in
                    client.cancelQueries("issues")
                    let previous = try? client.getQueryData("issues", as: [Issue].self)
                    try client.setQueryData(for: "issues") { (list: [Issue]?) in
                        list?.map { $0.id == id ? Issue(id: $0.id, title: $0.title, isClosed: true) : $0 }
                    }
                    return previous
                },
                onError: { _, _, previous in
                    if let previous = previous ?? nil { client.setQueryData(previous, for: "issues") }
                },
                invalidates: { _, _ in [.prefix("issues")] }, invalidatesWhen: .settled)
        ) { id in try await server.close(id) }
        let create = Mutation<String, Issue>(
            client: client,
            options: MutationOptions(invalidates: { _, _ in [.prefix("issues")] }, invalidatesWhen: .settled)
        ) { title in try await server.create(title) }

        // A first create settles: its refetch of the list is in flight when the close starts.
        let first = create.execute(with: "typo in README")
        await server.createGate.waitForCalls(1)
        server.createGate.release(returning: ())
        _ = try await first.response
        await server.listGate.waitForCalls(2)
        // The close cancels that refetch and writes its optimistic change.
        let closing = close.execute(with: 1)
        await server.closeGate.waitForCalls(1)
        #expect(issues.state.value?.first?.isClosed == true, "the optimistic close shows")
        #expect(server.listGate.hangingCount == 0, "the refetch in flight was cancelled before the write")
        // A second create settles while the close waits for the server: its refetch asks for the list before
        // the server closed the issue, and is still in flight when the close settles.
        let second = create.execute(with: "slow search")
        await server.createGate.waitForCalls(2)
        server.createGate.release(returning: ())
        _ = try await second.response
        await server.listGate.waitForCalls(3)
        server.closeGate.release(returning: ())
        _ = try await closing.response
        // The close's invalidation replaced the stale refetch with one that asks the server now (joining it
        // instead, the list would end stale and no fourth call would come: the time limit fails the test).
        await server.listGate.waitForCalls(4)
        server.listGate.release(returning: ())
        await client.waitUntilIdle()
        await client.flush()

        let truth = server.issues.withLock { $0 }
        #expect(truth.map(\.isClosed) == [true, false, false])
        #expect(issues.state.value == truth)
        let onDisk: [Issue]? = try JSONFileQueryCache(directory: folder.url).get(for: "issues")
        #expect(onDisk == truth, "the list saved for the next run is the server's")
    }
}
