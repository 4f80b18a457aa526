import Foundation
import LoftTesting
import Testing

@testable import Loft

/// The rules of mutation calls as a user of TanStack's offline mutations expects them, one test per rule.
@Suite(.timeLimit(.minutes(1))) struct MutationRulesTests {
    private static let addKey: QueryKey = ["todos", "add"]

    /// A client of `folder`'s cache.
    private static func client(_ folder: TemporaryDirectory, isOnline: Bool = true) -> QueryClient {
        QueryClient(cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler(), isOnline: isOnline)
    }

    /// Saves `requests` as paused calls of `key` in `folder`, by a client that then goes away (the restart).
    private static func saveOffline(_ requests: [String], key: QueryKey = addKey, in folder: TemporaryDirectory) async {
        #expect(await OfflineCalls.save(requests, key: key, in: folder).count == requests.count)
    }

    @Test("1. a resumed call runs its defaults' onSuccess with a nil context, though they have a typed onMutate")
    func resumedCallGetsNilContext() async {
        let folder = TemporaryDirectory()
        await Self.saveOffline(["milk"], in: folder)
        let client = Self.client(folder)
        let log = Locked<[String]>([])
        client.setMutationDefaults(
            MutationDefaults<String, Int>(
                options: MutationOptions(
                    onMutate: { _ in
                        log.withLock { $0.append("onMutate") }; return 7
                    },
                    onSuccess: { response, request, context in
                        log.withLock {
                            $0.append("onSuccess \(response) \(request) \(context.map(String.init) ?? "nil")")
                        }
                    },
                    onSettled: { _, _, _, context in
                        log.withLock { $0.append("onSettled \(context.map(String.init) ?? "nil")") }
                    })
            ) { request, _ in request.count },
            for: Self.addKey)
        #expect(client.resumePausedMutations() == 1)
        await client.untilMutationsSettled()
        #expect(log.withLock { $0 } == ["onSuccess 4 milk nil", "onSettled nil"])
        #expect(client.mutations().map(\.status) == [.success])
    }

    @Test("2. defaults match by key prefix: a saved call of a longer key resumes; the longest prefix wins per field")
    func defaultsMatchByPrefix() async {
        let folder = TemporaryDirectory()
        await Self.saveOffline(["milk"], in: folder)
        let client = Self.client(folder)
        let log = Locked<[String]>([])
        // The shorter prefix gives `onSuccess`; the longer one gives the fetcher and `onSettled`.
        client.setMutationDefaults(
            MutationDefaults<String, Int>(
                options: MutationOptions(
                    onSuccess: { _, _, _ in log.withLock { $0.append("todos onSuccess") } },
                    onSettled: { _, _, _, _ in log.withLock { $0.append("todos onSettled") } })
            ) { _, _ in
                log.withLock { $0.append("todos fetcher") }
                return 0
            },
            for: ["todos"])
        client.setMutationDefaults(
            MutationDefaults<String, Int>(
                options: MutationOptions(onSettled: { _, _, _, _ in log.withLock { $0.append("add onSettled") } })
            ) { request, _ in
                log.withLock { $0.append("add fetcher") }
                return request.count
            },
            for: Self.addKey)
        #expect(client.resumePausedMutations() == 1)
        await client.untilMutationsSettled()
        #expect(log.withLock { $0 } == ["add fetcher", "todos onSuccess", "add onSettled"])

        // Defaults for a shorter prefix alone reach the saved call too.
        let other = TemporaryDirectory()
        await Self.saveOffline(["eggs"], in: other)
        let second = Self.client(other)
        second.setMutationDefaults(MutationDefaults<String, Int> { request, _ in request.count }, for: ["todos"])
        #expect(second.resumePausedMutations() == 1)
        await second.untilMutationsSettled()
        #expect(second.mutations().map(\.status) == [.success])
        #expect(second.mutationCache.journal.records.isEmpty)
    }

    @Test("3. mutation defaults serve live mutations too; a mutation's own options override them field by field")
    func defaultsServeLiveMutations() async throws {
        let harness = TestQueryClient()
        let client = harness.client
        let log = Locked<[String]>([])
        let add = Mutation<String, Int>(
            client: client,
            options: MutationOptions(
                onError: { _, _, _ in log.withLock { $0.append("own onError") } }, mutationKey: Self.addKey)
        ) { $0.count }
        // Set after the mutation was made: read at each call.
        client.setMutationDefaults(
            MutationDefaults<String, Int>(
                options: MutationOptions(
                    onSuccess: { _, _, _ in log.withLock { $0.append("defaults onSuccess") } },
                    onError: { _, _, _ in log.withLock { $0.append("defaults onError") } },
                    networkMode: .always, meta: ["from": "defaults"])
            ) { _, _ in 0 },
            for: ["todos"])
        client.setOnline(false)
        // `.always` from the defaults: the call runs offline.
        #expect(try await add.mutate("milk") == 4)
        #expect(log.withLock { $0 } == ["defaults onSuccess"])
        #expect(client.mutations().last?.meta == ["from": "defaults"])

        let failing = Mutation<String, Int>(
            client: client,
            options: MutationOptions(
                onError: { _, _, _ in log.withLock { $0.append("own onError") } }, mutationKey: Self.addKey,
                networkMode: .always)
        ) { _ in throw APIError.offline }
        _ = try? await failing.mutate("eggs")
        #expect(log.withLock { $0 }.last == "own onError", "the mutation's own callback overrides the defaults'")
        #expect(!log.withLock { $0 }.contains("defaults onError"))
    }

    @Test("4. on reconnect, queries refetch after the resumed mutations settled, and see their effect")
    func reconnectRefetchWaitsForMutations() async {
        let harness = TestQueryClient()
        let client = harness.client
        let server = Locked(0)
        let query = Query<Void, Int>(key: "count", behavior: .startImmediately(()), client: client) {
            server.withLock { $0 }
        }
        await client.waitUntilIdle()
        #expect(query.state.value == 0)
        client.setOnline(false)
        let reply = ScriptedFetcher<Int, Int>(.hang())
        let save = Mutation<Int, Int>(client: client) { value in
            server.withLock { $0 = value }
            return try await reply.fetch(value)
        }
        save.execute(with: 1)
        await client.waitUntilIdle()
        #expect(save.isPaused)

        client.setOnline(true)
        // The mutation goes on; the query waits for it to settle.
        await reply.waitForCalls(1)
        #expect(query.snapshot.fetchStatus == .idle, "no reconnect refetch while a resumed mutation is pending")
        #expect(harness.fetchReasons(for: "count") == [.firstUse])
        reply.release(returning: 1)
        await client.untilMutationsSettled()
        await client.waitUntilIdle()
        #expect(harness.fetchReasons(for: "count") == [.firstUse, .reconnect])
        #expect(query.state.value == 1, "the refetch saw the mutation's change")
        #expect(!client.context.environment.conditions.isSettlingMutations, "the wait ended with the last call")
    }

    @Test("5. callbacks keep one shape with or without onMutate: response or error, request, context")
    func oneCallbackShape() async throws {
        let client = TestQueryClient().client
        let log = Locked<[String]>([])
        // The same closures, typed by each initialiser: adding `onMutate` changes no other callback.
        let plain = MutationOptions<String, Int>(
            onSuccess: { response, request, context in
                log.withLock { $0.append("success \(response) \(request) \(context == nil ? "nil" : "void")") }
            },
            onSettled: { response, error, request, context in
                log.withLock { $0.append("settled \(response ?? -1) \(error == nil) \(request)") }
            })
        let optimistic = MutationOptions<String, Int>(
            onMutate: { request in "before \(request)" },
            onSuccess: { response, request, context in
                log.withLock { $0.append("success \(response) \(request) \(context ?? "nil")") }
            },
            onSettled: { response, error, request, context in
                log.withLock { $0.append("settled \(response ?? -1) \(error == nil) \(request)") }
            })
        _ = try await Mutation(client: client, options: plain) { $0.count }.mutate("ab")
        _ = try await Mutation(client: client, options: optimistic) { $0.count }.mutate("abc")
        #expect(
            log.withLock { $0 } == [
                "success 2 ab void", "settled 2 true ab", "success 3 abc before abc", "settled 3 true abc",
            ])
    }

    @Test("6. a mutation shows its latest call whole, kept after the cache collected it, until reset or the next call")
    func mutationStateIsWhole() async throws {
        let harness = TestQueryClient()
        let client = harness.client
        let fetcher = ScriptedFetcher<String, Int>(.fail(APIError.offline), .answer(4))
        let save = Mutation(client: client, options: MutationOptions(gcTime: .seconds(1)), fetcher: fetcher.fetch)
        #expect(save.status == .idle && save.submittedAt == nil && save.failureCount == 0)

        client.setOnline(false)
        save.execute(with: "milk")
        await client.waitUntilIdle()
        #expect(save.status == .pending && save.isPaused && save.request == "milk")
        #expect(save.submittedAt == harness.scheduler.now)
        client.setOnline(true)
        await client.untilMutationsSettled()
        #expect(save.status == .error && save.failureCount == 1)
        #expect(save.error as? APIError == .offline && save.failureReason as? APIError == .offline)

        #expect(try await save.mutate("eggs") == 4)
        harness.scheduler.advance(by: .seconds(2))
        #expect(client.mutations().isEmpty, "collected by the cache after gcTime")
        #expect(save.status == .success && save.data == 4 && save.request == "eggs")
        #expect(save.failureCount == 0 && save.failureReason == nil && save.error == nil)
        #expect(save.state.value == 4)
        save.reset()
        #expect(save.status == .idle && save.data == nil && save.latestCall == nil)
        #expect(save.state.isIdle)
    }

    @Test("7. a mutation list follows the calls a filter matches, each change published once")
    func mutationListPublishesEachChangeOnce() async {
        let harness = TestQueryClient()
        let client = harness.client
        let pending = MutationList(matching: MutationFilter(key: Self.addKey, status: .pending), client: client) {
            "\($0.request(as: String.self) ?? "?")\($0.isPaused ? " paused" : "")"
        }
        let published = PublisherRecorder(pending.callsPublisher)
        let add = Mutation<String, Int>(client: client, options: MutationOptions(mutationKey: Self.addKey)) {
            $0.count
        }
        client.setOnline(false)
        add.execute(with: "milk")
        add.execute(with: "eggs")
        await client.until { pending.calls == ["milk paused", "eggs paused"] }
        client.setOnline(true)
        await client.untilMutationsSettled()
        await client.waitUntilIdle()
        let lists = published.values
        #expect(lists.first == [])
        #expect(lists.last == [])
        #expect(lists.contains(["milk paused", "eggs paused"]))
        for (before, after) in zip(lists, lists.dropFirst()) {
            #expect(before != after, "a change is published once: \(lists)")
        }
    }
}
