import Foundation
import LoftTesting
import Testing

@testable import Loft

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The offline journal's records are hostile input too: one damaged record costs that record alone, reported
/// with a typed event naming it, and nothing blocks.
@Suite(.timeLimit(.minutes(1))) struct MutationJournalTests {
    private static let addKey: QueryKey = ["todos", "add"]

    /// How a record's file is damaged.
    enum Damage: String, CaseIterable, Sendable {
        case truncated, garbage, newerFormat, otherType, symbolicLink, fifo, directory
    }

    /// Saves `requests` as paused calls in `folder`; returns their idempotency keys, in order.
    private static func saveOffline(_ requests: [String], in folder: TemporaryDirectory) async -> [String] {
        await OfflineCalls.save(requests, key: addKey, in: folder)
    }

    /// The path of a call's record file in `folder`.
    private static func path(of idempotencyKey: String, in folder: TemporaryDirectory) -> String {
        let name = CacheFileName.direct(MutationJournal.key(of: idempotencyKey)) ?? "unnamed"
        return folder.url.appendingPathComponent(name).path
    }

    private static func damage(_ path: String, _ damage: Damage, folder: TemporaryDirectory) throws {
        let contents = try Data(contentsOf: URL(fileURLWithPath: path))
        switch damage {
        case .truncated:
            try contents.prefix(contents.count / 2).write(to: URL(fileURLWithPath: path))
        case .garbage:
            try Data("not a record \u{0}\u{1}".utf8).write(to: URL(fileURLWithPath: path))
        case .newerFormat:
            let text = String(decoding: contents, as: UTF8.self)
            #expect(text.contains("\"format\":2"))
            try Data(text.replacingOccurrences(of: "\"format\":2", with: "\"format\":99").utf8)
                .write(to: URL(fileURLWithPath: path))
        case .otherType:
            // A value of another type saved under the record's key, by the cache itself.
            let cache = JSONFileQueryCache(directory: folder.url)
            let recordKey = try #require(CacheFileName.key(ofDirect: URL(fileURLWithPath: path).lastPathComponent))
            try cache.save(["not": "a mutation"], for: recordKey)
        case .symbolicLink:
            let target = folder.url.appendingPathComponent("elsewhere.json").path
            try contents.write(to: URL(fileURLWithPath: target))
            unlink(path)
            #expect(symlink(target, path) == 0)
        case .fifo:
            unlink(path)
            #expect(mkfifo(path, 0o644) == 0)
        case .directory:
            unlink(path)
            #expect(mkdir(path, 0o755) == 0)
        }
    }

    @Test(
        "a damaged record is reported by its key and file; every other saved call still resumes",
        arguments: Damage.allCases)
    func damagedRecord(_ damage: Damage) async throws {
        let folder = TemporaryDirectory()
        let keys = await Self.saveOffline(["milk", "eggs", "bread"], in: folder)
        #expect(keys.count == 3)
        let damaged = Self.path(of: keys[1], in: folder)
        try Self.damage(damaged, damage, folder: folder)

        let client = QueryClient(cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler())
        let events = PublisherRecorder(client.events)
        let sent = Locked<[String]>([])
        client.setMutationDefaults(
            MutationDefaults<String, Int> { request, _ in
                sent.withLock { $0.append(request) }
                return request.count
            }, for: Self.addKey)
        #expect(client.resumePausedMutations() == 2)
        await client.untilMutationsSettled()
        // Calls without a scope run side by side: the order in which their fetchers run is the pool's.
        #expect(sent.withLock { $0 }.sorted() == ["bread", "milk"])
        let failures = events.values.compactMap { event -> (QueryKey, any Error)? in
            guard case .persistenceFailed(let key, let error) = event else { return nil }
            return (key, error)
        }
        #expect(failures.count == 1)
        #expect(failures.first?.0 == MutationJournal.key(of: keys[1]), "the event names the damaged record")
        let error = try #require(failures.first?.1 as? CacheError)
        switch error {
        case .corruptEntry(_, let path, _), .readFailed(let path, _):
            #expect(path == damaged, "the event names the file")
        case .undecodableValue(let key, _, _, _):
            #expect(key == MutationJournal.key(of: keys[1]))
        default:
            Issue.record("unexpected error \(error)")
        }
        // The damaged record is left where it was, for whoever can read it; nothing else is left.
        #expect(client.mutationCache.journal.records.isEmpty)
    }

    @Test("a journal of the one-record format is moved to one record per call, a call listed twice is one call")
    func oldFormatIsMigrated() async throws {
        let folder = TemporaryDirectory()
        let cache = JSONFileQueryCache(directory: folder.url)
        let records = ["milk", "eggs"].map { request in
            MutationRecord(
                idempotencyKey: UUID().uuidString, mutationKey: Self.addKey, scope: nil,
                submittedAt: SchedulerInstant(nanosecondsSinceEpoch: 0), meta: [:], request: "\"\(request)\"",
                position: nil, format: nil)
        }
        // The first call listed twice (a journal written by hand or by another version): one call.
        try cache.save(records + [records[0]], for: MutationJournal.prefix)
        let client = QueryClient(cache: cache, scheduler: TestScheduler())
        let sent = Locked<[String]>([])
        client.setMutationDefaults(
            MutationDefaults<String, Int> { request, call in
                sent.withLock { $0.append("\(request) \(call.idempotencyKey)") }
                return 0
            }, for: Self.addKey)
        #expect(client.resumePausedMutations() == 2)
        await client.untilMutationsSettled()
        #expect(sent.withLock { $0 } == records.map { "\($0.request.dropFirst().dropLast()) \($0.idempotencyKey)" })
        #expect(try cache.keys(under: MutationJournal.prefix).isEmpty)
    }

    @Test(
        "within one process a saved call is sent once: resuming again, while it runs or after it settled, sends nothing"
    )
    func resumedOncePerProcess() async throws {
        let folder = TemporaryDirectory()
        _ = await Self.saveOffline(["milk"], in: folder)
        let client = QueryClient(cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler())
        let reply = ScriptedFetcher<String, Int>(.hang())
        client.setMutationDefaults(
            MutationDefaults<String, Int> { request, _ in try await reply.fetch(request) }, for: Self.addKey)
        #expect(client.resumePausedMutations() == 1)
        await reply.waitForCalls(1)
        #expect(client.resumePausedMutations() == 0, "while it runs")
        reply.release(returning: 4)
        await client.untilMutationsSettled()
        #expect(client.resumePausedMutations() == 0, "after it settled")
        #expect(reply.callCount == 1)
        #expect(client.mutationCache.journal.records.isEmpty)
    }

    @Test("a provider that cannot list its keys is reported once, and no call is saved where it could not be found")
    func providerThatCannotList() async {
        let memory = InMemoryQueryCache()
        let cache = RecordingQueryCache(memory, listsKeys: false)  // a provider of a user's own
        let client = QueryClient(cache: cache, scheduler: TestScheduler(), isOnline: false)
        let events = PublisherRecorder(client.events)
        let add = Mutation<String, Int>(client: client, options: MutationOptions(mutationKey: Self.addKey)) { $0.count }
        add.execute(with: "milk")
        add.execute(with: "eggs")
        await client.waitUntilIdle()
        let failures = events.values.compactMap { event -> CacheError? in
            guard case .persistenceFailed(_, let error) = event else { return nil }
            return error as? CacheError
        }
        #expect(failures.count == 1)
        if case .unavailable = failures.first {} else { Issue.record("expected unavailable, got \(failures)") }
        #expect(memory.keys(under: MutationJournal.prefix).isEmpty)
        client.setOnline(true)
        await client.untilMutationsSettled()
        #expect(add.status == .success, "the calls go on, unsaved")
    }

    @Test("a subscriber that re-enters the journal from its failure event neither crashes nor deadlocks")
    func reentrantSubscriber() async throws {
        let folder = TemporaryDirectory()
        let keys = await Self.saveOffline(["milk", "eggs"], in: folder)
        try Self.damage(Self.path(of: keys[0], in: folder), .garbage, folder: folder)
        let client = QueryClient(cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler())
        client.setMutationDefaults(MutationDefaults<String, Int> { request, _ in request.count }, for: Self.addKey)
        let add = Mutation<String, Int>(client: client, options: MutationOptions(mutationKey: Self.addKey)) {
            $0.count
        }
        let reentered = Locked(0)
        let resumedInside = Locked(0)
        let subscription = client.events.sink { event in
            guard case .persistenceFailed = event else { return }
            // Back into the journal, from the thread that reports its failure.
            reentered.withLock { $0 += 1 }
            let resumed = client.resumePausedMutations()
            resumedInside.withLock { $0 += resumed }
            add.execute(with: "bread")
        }
        let resumed = client.resumePausedMutations()
        #expect(resumed + resumedInside.withLock { $0 } == 1, "the saved call is resumed once, by one of the two")
        await client.untilMutationsSettled()
        await client.waitUntilIdle()
        #expect(reentered.withLock { $0 } == 1)
        #expect(client.mutations().map { $0.request(as: String.self) ?? "?" }.sorted() == ["bread", "eggs"])
        subscription.cancel()
    }
}
