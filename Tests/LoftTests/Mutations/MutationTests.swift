import LoftTesting
import TestSupport
import Testing

@testable import Loft

@Suite struct MutationTests {
    @Test("callbacks run in order: onMutate, the request, onSuccess, the execute closure, onSettled")
    func callbackOrder() async throws {
        let harness = TestQueryClient()
        let log = Box<[String]>([])
        let mutation = Mutation<String, Int>(
            client: harness.client,
            options: MutationOptions(
                onMutate: { request in
                    log.mutate { $0.append("onMutate \(request)") }
                    return "context"
                },
                onSuccess: { response, _, context in
                    log.mutate { $0.append("onSuccess \(response) \(context ?? "none")") }
                },
                onSettled: { response, error, _, _ in
                    log.mutate { $0.append("onSettled \(response ?? -1) \(error == nil)") }
                }
            )
        ) { request in
            log.mutate { $0.append("request \(request)") }
            return request.count
        }
        mutation.execute(with: "ada") { response, _ in log.mutate { $0.append("execute \(response)") } }
        await harness.client.waitUntilIdle()
        #expect(
            log.value == ["onMutate ada", "request ada", "onSuccess 3 context", "execute 3", "onSettled 3 true"])
        #expect(mutation.state.value == 3)
    }

    @Test("an optional, Void or existential response comes back as the fetcher returned it, in mutate and in state")
    func responseTypes() async throws {
        let harness = TestQueryClient()
        let optional = Mutation<Int, Int?>(client: harness.client) { $0 > 0 ? $0 : nil }
        #expect(try await optional.mutate(0) == nil)
        #expect(optional.state.isSame(as: .succeed(nil)))
        #expect(try await optional.mutate(3) == 3)
        #expect(optional.state.value == .some(3))
        let void = Mutation<Int, Void>(client: harness.client) { _ in }
        try await void.mutate(1)
        #expect(void.state.value != nil)
        let existential = Mutation<Int, any Sendable>(client: harness.client) { "\($0)" }
        #expect(try await existential.mutate(4) as? String == "4")
        let seen = Box<[Int?]>([])
        optional.execute(with: 0) { response, _ in seen.mutate { $0.append(response) } }
        await harness.client.waitUntilIdle()
        #expect(seen.value == [nil])
    }

    @Test("a failure goes to onError then onSettled, is thrown by mutate, and lands in state")
    func failure() async {
        let harness = TestQueryClient()
        let log = Box<[String]>([])
        let mutation = Mutation<Int, Int>(
            client: harness.client,
            options: MutationOptions(
                onError: { error, _, _ in log.mutate { $0.append("onError \(error)") } },
                onSettled: { _, error, _, _ in log.mutate { $0.append("onSettled \(error != nil)") } }
            )
        ) { _ in throw APIError.offline }
        await #expect(throws: APIError.offline) { try await mutation.mutate(1) }
        #expect(log.value == ["onError offline", "onSettled true"])
        #expect(mutation.state.error as? APIError == .offline)
        mutation.reset()
        #expect(mutation.state.isIdle)
    }

    @Test("the state goes idle, loading, succeed; isMutating counts running mutations")
    func states() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, Int>(.hang())
        let mutation = Mutation(client: harness.client, fetcher: fetcher.fetch)
        let states = PublisherRecorder(mutation.statePublisher.map { "\($0)" })
        mutation.execute(with: 1)
        await fetcher.waitForCalls(1)
        #expect(mutation.state.isLoading)
        #expect(harness.client.isMutating() == 1)
        fetcher.release(returning: 2)
        await harness.client.waitUntilIdle()
        #expect(states.values == ["idle", "loading", "succeed(2)"])
        #expect(harness.client.isMutating() == 0)
    }

    @Test(
        "a call that settles while the success before it is published shows once, after it (unless equal)",
        arguments: [
            (2, ["idle", "loading", "succeed(1)", "succeed(2)"], [1, 2]), (1, ["idle", "loading", "succeed(1)"], [1]),
        ])
    func callSettledDuringAPublication(second: Int, states expectedStates: [String], values expectedValues: [Int])
        async throws
    {
        guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
        let harness = TestQueryClient()
        let mutation = Mutation<Int, Int>(client: harness.client) { $0 }
        let values = PublisherRecorder(mutation.valuePublisher)
        let states = Locked<[String]>([])
        let started = Locked(false)
        // While the first success is delivered, a second call starts and ends on the same thread
        // (`Task.immediate`, as `mutate` runs an immediate fetcher): its pending state is never published.
        let subscription = mutation.statePublisher.sink { state in
            states.withLock { $0.append("\(state)") }
            guard state.value == 1, !started.withLock({ $0 }) else { return }
            started.withLock { $0 = true }
            Task.immediate { _ = try? await mutation.mutate(second) }
        }
        #expect(try await mutation.mutate(1) == 1)
        await harness.client.waitUntilIdle()
        subscription.cancel()
        #expect(states.withLock { $0 } == expectedStates)
        #expect(values.values == expectedValues)
        #expect(harness.client.mutations().map(\.status) == [.success, .success])
    }

    @Test("with overlapping calls the state follows the latest; reset shows idle and drops the calls before it")
    func latestCallWins() async throws {
        let harness = TestQueryClient()
        let first = ScriptedFetcher<Int, Int>(.hang())
        let later = ScriptedFetcher<Int, Int>(.hang())
        let mutation = Mutation<Int, Int>(client: harness.client) { request in
            request == 1 ? try await first.fetch(request) : try await later.fetch(request)
        }
        let values = PublisherRecorder(mutation.valuePublisher)
        let states = PublisherRecorder(mutation.statePublisher.map { "\($0)" })
        mutation.execute(with: 1)
        await first.waitForCalls(1)
        mutation.execute(with: 2)
        await later.waitForCalls(1)
        later.release(returning: 20)
        first.release(returning: 10)
        await harness.client.waitUntilIdle()
        #expect(mutation.state.value == 20)
        mutation.execute(with: 3)
        await later.waitForCalls(2)
        mutation.reset()
        later.release(returning: 30)
        await harness.client.waitUntilIdle()
        #expect(mutation.state.value == nil)
        #expect(values.values == [20])
        #expect(states.values == ["idle", "loading", "succeed(20)", "loading", "idle"])
    }

    @Test("calls from many tasks at once: the last state published is the one the mutation ends in, the latest call's")
    func concurrentCallsPublishTheLastState() async throws {
        let harness = TestQueryClient()
        let mutation = Mutation<Int, Int>(client: harness.client) { $0 * 10 }
        let states = PublisherRecorder(mutation.statePublisher.map { "\($0)" })
        await withTaskGroup(of: Void.self) { group in
            for request in 1...200 {
                group.addTask { _ = try? await mutation.mutate(request) }
            }
        }
        await harness.client.waitUntilIdle()
        let latest = try #require(harness.client.mutations().max { $0.id < $1.id })
        let request = try #require(latest.request as? Int)
        #expect(mutation.state.value == request * 10)
        #expect(states.values.last == "\(mutation.state)")
        #expect(states.values.first == "idle")
        let published = states.values
        #expect(zip(published, published.dropFirst()).allSatisfy { $0 != $1 }, "no state is sent twice in a row")
    }

    @Test("a change made by a subscriber while a state is being published is published after it, in order")
    func changeDuringPublicationIsPublishedNext() async throws {
        let harness = TestQueryClient()
        let mutation = Mutation<Int, Int>(client: harness.client) { $0 * 10 }
        let states = Locked<[String]>([])
        let subscription = mutation.statePublisher.sink { state in
            states.withLock { $0.append("\(state)") }
            // Reset while the success is being published: the publication in progress must send it after.
            if state.value == 10 { mutation.reset() }
        }
        #expect(try await mutation.mutate(1) == 10)
        await harness.client.waitUntilIdle()
        subscription.cancel()
        #expect(mutation.state.isSame(as: .idle))
        #expect(states.withLock { $0 } == ["idle", "loading", "succeed(10)", "idle"])
    }

    @Test("invalidate(key, .lastData) refetches the matching active queries with the request they last used")
    func invalidateLastData() async {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(600)))
        let fetcher = ScriptedFetcher<Int, String>(.answer("v1"), .answer("v2"))
        let list = Query(
            key: "users", keyAdapter: { $0.appending($1) }, behavior: .startImmediately(1), client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        let create = Mutation<String, String>(client: harness.client) { $0 }
        create.execute(with: "ada") { _, invalidate in invalidate("users", .lastData) }
        await harness.client.waitUntilIdle()
        #expect(fetcher.requests == [1, 1])
        #expect(list.state.value == "v2")
    }

    @Test("invalidate(key, .newData(request)) refetches with the new request")
    func invalidateNewData() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, String>(.answer("page 1"), .answer("page 2"))
        let list = Query(
            key: "feed", keyAdapter: { $0.appending($1) }, behavior: .startImmediately(1), client: harness.client,
            fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        let post = Mutation<String, String>(client: harness.client) { $0 }
        post.execute(with: "hello") { _, invalidator in invalidator.invalidate("feed", .newData(2)) }
        await harness.client.waitUntilIdle()
        #expect(fetcher.requests == [1, 2])
        #expect(list.state.value == "page 2")
        #expect(list.key == ["feed", 2])
    }

    @Test("invalidate(key, .newData(request)) leaves a disabled query alone, as refetchQueries does")
    func newDataSkipsDisabledQueries() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, String>(.answer("page 1"), .answer("page 2"))
        let list = Query(
            key: "feed", keyAdapter: { $0.appending($1) }, behavior: .startImmediately(1),
            options: QueryOptions(enabled: false), client: harness.client, fetcher: fetcher.fetch)
        harness.client.setQueryData("seeded", for: ["feed", 1])
        let post = Mutation<String, String>(client: harness.client) { $0 }
        post.execute(with: "hello") { _, invalidator in invalidator.invalidate(["feed", 1], .newData(2)) }
        await harness.client.waitUntilIdle()
        #expect(post.status == .success)
        #expect(fetcher.callCount == 0)
        #expect(list.key == ["feed", 1])
        #expect(list.state.value == "seeded")
    }

    @Test("retry waits on the client's scheduler")
    func retry() async throws {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, Int>(.fail(APIError.offline), .answer(7))
        let mutation = Mutation(
            client: harness.client, options: MutationOptions(retry: .count(1)), fetcher: fetcher.fetch)
        mutation.execute(with: 1)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        await harness.advance(by: .seconds(1))
        #expect(mutation.state.value == 7)
    }

    @Test("a mutation nobody references is freed once its calls end")
    func freed() async {
        let harness = TestQueryClient()
        weak var weakMutation: Mutation<Int, Int>?
        do {
            let mutation = Mutation<Int, Int>(client: harness.client) { $0 }
            weakMutation = mutation
            let subscription = mutation.statePublisher.sink { _ in }
            mutation.execute(with: 1)
            await harness.client.waitUntilIdle()
            _ = subscription
        }
        #expect(weakMutation == nil)
    }
}
