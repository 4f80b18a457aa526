import Foundation
import LoftTesting
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Mutations saved in the persistent cache and sent again after a restart: in order, once, never offline, and at
/// least once with the same idempotency key when the process died after the server accepted.
@Suite(.timeLimit(.minutes(1))) struct MutationRestartTests {
    /// A server that records what it accepted, in order.
    final class Server: Sendable {
        private let log = Locked<[String]>([])

        var accepted: [String] { log.withLock { $0 } }

        func accept(_ request: String, _ call: MutationCall) -> Int {
            log.withLock { $0.append("\(call.idempotencyKey) \(request)") }
            return request.count
        }
    }

    private static let addKey: QueryKey = ["todos", "add"]

    /// A client of `folder`'s cache, offline or not, that knows how to resume the "add" mutation.
    private static func client(_ folder: TemporaryDirectory, server: Server, isOnline: Bool = true) -> QueryClient {
        let client = QueryClient(
            cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler(), isOnline: isOnline)
        client.setMutationDefaults(
            MutationDefaults<String, Int>(options: MutationOptions(scope: "todos")) { request, call in
                server.accept(request, call)
            }, for: addKey)
        return client
    }

    @Test("calls paused offline are saved, and after a restart resume in order, once, and only when online")
    func resumeAfterRestart() async throws {
        let folder = TemporaryDirectory()
        let before = Server()
        let first = Self.client(folder, server: before, isOnline: false)
        let add = Mutation<String, Int>(
            client: first, options: MutationOptions(scope: "todos", mutationKey: Self.addKey)
        ) { request, call in before.accept(request, call) }
        for request in ["milk", "eggs", "bread"] { add.execute(with: request) }
        await first.waitUntilIdle()  // every call paused offline, saved first
        #expect(first.mutationCache.journal.records.count == 3)
        let saved = first.mutationCache.journal.records
        #expect(saved.map(\.request) == ["\"milk\"", "\"eggs\"", "\"bread\""])
        #expect(saved.map(\.scope) == ["todos", "todos", "todos"])
        #expect(before.accepted.isEmpty)

        // The restart: a new client on the same folder, still offline.
        let server = Server()
        let second = Self.client(folder, server: server, isOnline: false)
        #expect(second.resumePausedMutations() == 3)
        await second.until { second.mutations().allSatisfy(\.isPaused) }
        #expect(second.mutations().map { $0.request(as: String.self) } == ["milk", "eggs", "bread"])
        #expect(second.mutations().map(\.idempotencyKey) == saved.map(\.idempotencyKey))
        #expect(second.resumePausedMutations() == 0)
        await second.waitUntilIdle()
        #expect(server.accepted.isEmpty)

        second.setOnline(true)
        await second.untilMutationsSettled()
        await second.waitUntilIdle()
        #expect(server.accepted == saved.map { "\($0.idempotencyKey) \($0.request.dropFirst().dropLast())" })
        #expect(second.mutations().map(\.status) == [.success, .success, .success])
        #expect(second.mutationCache.journal.records.isEmpty)

        // A third start finds nothing left to send.
        let third = Self.client(folder, server: server)
        #expect(third.resumePausedMutations() == 0)
        #expect(server.accepted.count == 3)
    }

    @Test("when the host says it is offline, resuming sets the client offline and sends nothing yet")
    func hostOffline() async throws {
        let folder = TemporaryDirectory()
        let first = Self.client(folder, server: Server(), isOnline: false)
        Mutation<String, Int>(client: first, options: MutationOptions(mutationKey: Self.addKey)) { _ in 0 }
            .execute(with: "milk")
        await first.waitUntilIdle()  // every call paused offline, saved first
        #expect(first.mutationCache.journal.records.count == 1)

        let server = Server()
        let second = Self.client(folder, server: server)
        #expect(second.resumePausedMutations(isOnline: false) == 1)
        #expect(!second.isOnline)
        await second.until { second.mutations().first?.isPaused == true }
        #expect(server.accepted.isEmpty)
        second.setOnline(true)
        await second.untilMutationsSettled()
        #expect(server.accepted.count == 1)
    }

    @Test("a saved call without defaults stays saved and is reported; one whose request no longer decodes is dropped")
    func unresumable() async throws {
        let folder = TemporaryDirectory()
        let first = QueryClient(
            cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler(), isOnline: false)
        Mutation<String, Int>(client: first, options: MutationOptions(mutationKey: ["unknown"])) { _ in 0 }
            .execute(with: "kept")
        Mutation<String, Int>(client: first, options: MutationOptions(mutationKey: ["numbers"])) { _ in 0 }
            .execute(with: "not a number")
        await first.waitUntilIdle()  // every call paused offline, saved first
        #expect(first.mutationCache.journal.records.count == 2)

        let second = QueryClient(cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler())
        let events = PublisherRecorder(second.events)
        second.setMutationDefaults(MutationDefaults<Int, Int>(fetcher: { request, _ in request }), for: ["numbers"])
        #expect(second.resumePausedMutations() == 0)
        let errors = events.values.compactMap { event -> String? in
            guard case .persistenceFailed(let key, let error) = event, key.hasPrefix(MutationJournal.prefix) else {
                return nil
            }
            switch error {
            case MutationError.noDefaults(let key): return "no defaults \(key)"
            case CacheError.undecodableValue(_, _, let expected, _): return "undecodable \(expected)"
            default: return "other \(error)"
            }
        }
        #expect(errors == ["no defaults unknown", "undecodable Int"])
        #expect(second.mutationCache.journal.records.map(\.mutationKey) == [["unknown"]])

        // Registering the missing defaults later lets the next resume send it.
        let server = Server()
        second.setMutationDefaults(
            MutationDefaults<String, Int>(fetcher: { request, call in server.accept(request, call) }), for: ["unknown"])
        #expect(second.resumePausedMutations() == 1)
        await second.untilMutationsSettled()
        #expect(server.accepted.count == 1)
        #expect(second.mutationCache.journal.records.isEmpty)
    }

    @Test("a call without a mutation key, or with a request that is not Codable, is not saved")
    func notSaved() async throws {
        struct Opaque: Sendable {}
        let folder = TemporaryDirectory()
        let client = QueryClient(
            cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler(), isOnline: false)
        Mutation<String, Int>(client: client) { _ in 0 }.execute(with: "no key")
        Mutation<Opaque, Int>(client: client, options: MutationOptions(mutationKey: ["opaque"])) { _ in 0 }
            .execute(with: Opaque())
        Mutation<String, Int>(client: client, options: MutationOptions(mutationKey: ["saved"])) { _ in 0 }
            .execute(with: "saved")
        await client.until { client.mutations().count == 3 && client.mutations().allSatisfy(\.isPaused) }
        #expect(client.mutationCache.journal.records.map(\.mutationKey) == [["saved"]])
    }

    @Test("the fetcher gets the same idempotency key on every attempt")
    func sameKeyOnRetries() async throws {
        let harness = TestQueryClient()
        let keys = Locked<[String]>([])
        let flaky = Mutation<Int, Int>(
            client: harness.client,
            options: MutationOptions(retry: .custom { failures, _ in failures <= 2 ? .zero : nil })
        ) { request, call in
            let attempt = keys.withLock { keys -> Int in
                keys.append(call.idempotencyKey)
                return keys.count
            }
            if attempt < 3 { throw APIError.status(503) }
            return request
        }
        let result = Task { try await flaky.mutate(1) }
        // Each retry waits on the virtual clock (zero delay): once an attempt failed and its retry timer is set
        // (the client is idle then), an advance fires it.
        for attempt in 1...2 {
            await harness.until { keys.withLock { $0.count } == attempt }
            await harness.waitUntilIdle()
            harness.scheduler.advance(by: .zero)
        }
        #expect(try await result.value == 1)
        #expect(keys.withLock { Set($0).count } == 1)
        #expect(keys.withLock { $0.count } == 3)
        #expect(flaky.latestCall?.idempotencyKey == keys.withLock { $0.first })
    }

    @Test("a process killed after the server accepted a call sends it again once after the restart, same key")
    func killedAfterAccept() async throws {
        let child = try #require(
            ChildProcess.executable("MutationCrashClient"), "the MutationCrashClient executable is built with the tests"
        )
        let folder = TemporaryDirectory()
        try folder.write("", to: "server.log")
        let process = Process()
        process.executableURL = child
        process.arguments = [folder.url.appendingPathComponent("cache").path, folder.path + "/server.log", "milk"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var heard = Data()
        while !String(decoding: heard, as: UTF8.self).contains("accepted") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            heard.append(chunk)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let firstLife = try #require(folder.contents(of: "server.log")).split(separator: "\n").map(String.init)
        try #require(firstLife.count == 1, "the child's server accepted the call before the kill")

        let server = Server()
        let client = QueryClient(
            cache: JSONFileQueryCache(directory: folder.url.appendingPathComponent("cache")), scheduler: TestScheduler()
        )
        client.setMutationDefaults(
            MutationDefaults<String, Int>(fetcher: { request, call in server.accept(request, call) }), for: Self.addKey)
        #expect(client.resumePausedMutations() == 1)
        await client.untilMutationsSettled()
        #expect(server.accepted == firstLife)
        #expect(client.mutationCache.journal.records.isEmpty)
        #expect(client.resumePausedMutations() == 0)
        #expect(server.accepted.count == 1)
    }
}
