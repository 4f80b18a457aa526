import LoftTesting
import TestSupport
import Testing

@testable import Loft

/// The callbacks of a call: their order (the client's before the mutation's), typed context, throwing
/// callbacks, and the state changing only once they ran.
@Suite struct MutationCallbackTests {
    /// A mutation whose every callback (its own and the client's) appends to `log`.
    private static func logged(
        _ harness: TestQueryClient, _ log: Box<[String]>, throwing: String? = nil,
        fetcher: @escaping @Sendable (Int) async throws -> Int
    ) -> Mutation<Int, Int> {
        @Sendable func note(_ entry: String) throws {
            log.mutate { $0.append(entry) }
            if entry.hasPrefix(throwing ?? "-") { throw APIError.status(500) }
        }
        harness.client.setMutationCallbacks(
            MutationCallbacks(
                onMutate: { _ in try note("client onMutate") },
                onSuccess: { response, _ in try note("client onSuccess \(response)") },
                onError: { error, _ in try note("client onError \(error)") },
                onSettled: { response, error, _ in try note("client onSettled \(response.map { "\($0)" } ?? "-")") }
            ))
        return Mutation(
            client: harness.client,
            options: MutationOptions(
                onMutate: { request in
                    try note("onMutate \(request)")
                    return "context \(request)"
                },
                onSuccess: { response, _, context in try note("onSuccess \(response) \(context ?? "none")") },
                onError: { error, _, context in try note("onError \(error) \(context ?? "none")") },
                onSettled: { response, error, _, context in
                    try note("onSettled \(response.map { "\($0)" } ?? "-") \(error == nil) \(context ?? "none")")
                }
            ),
            fetcher: fetcher)
    }

    @Test("success: the client's callbacks before the mutation's, the execute closure, each once, in order")
    func successOrder() async {
        let harness = TestQueryClient()
        let log = Box<[String]>([])
        let mutation = Self.logged(harness, log) { request in
            log.mutate { $0.append("request \(request)") }
            return request * 10
        }
        mutation.execute(with: 1) { response, _ in log.mutate { $0.append("execute \(response)") } }
        await harness.client.waitUntilIdle()
        #expect(
            log.value == [
                "client onMutate", "onMutate 1", "request 1", "client onSuccess 10", "onSuccess 10 context 1",
                "execute 10", "client onSettled 10", "onSettled 10 true context 1",
            ])
        #expect(mutation.state.value == 10)
    }

    @Test("failure: onError gets the typed context, then onSettled; the request's error is thrown")
    func failureOrder() async {
        let harness = TestQueryClient()
        let log = Box<[String]>([])
        let mutation = Self.logged(harness, log) { _ in throw APIError.offline }
        await #expect(throws: APIError.offline) { try await mutation.mutate(2) }
        #expect(
            log.value == [
                "client onMutate", "onMutate 2", "client onError offline", "onError offline context 2",
                "client onSettled -", "onSettled - false context 2",
            ])
    }

    @Test("a throwing onSuccess: the callbacks after it still run, and the call fails with its error")
    func throwingOnSuccess() async {
        let harness = TestQueryClient()
        let log = Box<[String]>([])
        let mutation = Self.logged(harness, log, throwing: "onSuccess") { $0 }
        await #expect(throws: APIError.status(500)) { try await mutation.mutate(3) }
        #expect(
            log.value == [
                "client onMutate", "onMutate 3", "client onSuccess 3", "onSuccess 3 context 3", "client onSettled 3",
                "onSettled 3 true context 3",
            ])
        #expect(mutation.state.error as? APIError == .status(500))
        #expect(harness.client.mutations().map(\.status) == [.error])
    }

    @Test("a throwing onMutate: the request is not sent; onError (no context) and onSettled run with its error")
    func throwingOnMutate() async {
        let harness = TestQueryClient()
        let log = Box<[String]>([])
        let fetcher = ScriptedFetcher<Int, Int>(.answer(1))
        let mutation = Self.logged(harness, log, throwing: "onMutate") { try await fetcher.fetch($0) }
        await #expect(throws: APIError.status(500)) { try await mutation.mutate(4) }
        #expect(fetcher.callCount == 0)
        #expect(
            log.value == [
                "client onMutate", "onMutate 4", "client onError status(500)", "onError status(500) none",
                "client onSettled -", "onSettled - false none",
            ])
    }

    @Test("the state turns success only after onSuccess and onSettled ran")
    func stateChangesAfterCallbacks() async {
        let harness = TestQueryClient()
        let seen = Box<[String]>([])
        let mutationBox = Box<Mutation<Int, Int>?>(nil)
        let mutation = Mutation<Int, Int>(
            client: harness.client,
            options: MutationOptions(
                onSuccess: { _, _, _ in
                    seen.mutate { $0.append("onSuccess sees \(mutationBox.value?.state.isLoading == true)") }
                },
                onSettled: { _, _, _, _ in
                    seen.mutate { $0.append("onSettled sees \(mutationBox.value?.state.isLoading == true)") }
                }
            )
        ) { $0 }
        mutationBox.mutate { $0 = mutation }
        let states = PublisherRecorder(mutation.statePublisher.map { "\($0)" })
        mutation.execute(with: 5)
        await harness.client.waitUntilIdle()
        #expect(seen.value == ["onSuccess sees true", "onSettled sees true"])
        #expect(states.values == ["idle", "loading", "succeed(5)"])
        mutationBox.mutate { $0 = nil }
    }

    @Test("rollback restores exactly the previous value, though another mutation changed another key meanwhile")
    func rollback() async {
        let harness = TestQueryClient()
        harness.client.setQueryData(10, for: ["likes", 1])
        harness.client.setQueryData(20, for: ["likes", 2])
        let like = Mutation<Int, Int>(
            client: harness.client,
            options: MutationOptions(
                onMutate: { post -> Int? in
                    let before = try? harness.client.getQueryData(QueryKey("likes", post), as: Int.self)
                    harness.client.setQueryData((before ?? 0) + 1, for: QueryKey("likes", post))
                    return before
                },
                onError: { _, post, before in
                    if let before = before ?? nil { harness.client.setQueryData(before, for: QueryKey("likes", post)) }
                }
            )
        ) { post in
            if post == 1 { throw APIError.offline }
            return post
        }
        await #expect(throws: APIError.offline) {
            async let failing: Int = like.mutate(1)
            _ = try await like.mutate(2)
            _ = try await failing
        }
        #expect((try? harness.client.getQueryData(["likes", 1], as: Int.self)) == 10)
        #expect((try? harness.client.getQueryData(["likes", 2], as: Int.self)) == 21)
    }

    @Test("the invalidator is callable as a function, Pigeon's spelling")
    func callableInvalidator() async {
        let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(600)))
        let fetcher = ScriptedFetcher<Void, String>(.answer("v1"), .answer("v2"))
        let users = Query(key: "users", behavior: .startImmediately(()), client: harness.client, fetcher: fetcher.fetch)
        await harness.client.waitUntilIdle()
        let create = Mutation<Int, Int>(client: harness.client) { $0 }
        create.execute(with: 10) { _, invalidate in invalidate(QueryKey(value: "users"), .lastData) }
        await harness.client.waitUntilIdle()
        #expect(users.state.value == "v2")
    }
}
