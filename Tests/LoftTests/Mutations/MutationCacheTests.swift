import LoftTesting
import TestSupport
import Testing

@testable import Loft

/// The client's mutation cache: listing, events, filters, garbage collection, scopes, cancellation, offline.
@Suite(.timeLimit(.minutes(1))) struct MutationCacheTests {
    @Test("every call is listed with its request, status, key, scope and time; events and the listing agree")
    func listingAndEvents() async {
        let harness = TestQueryClient()
        let events = PublisherRecorder(
            harness.client.events.compactMap { event -> String? in
                guard case .mutation(let change) = event else { return nil }
                return "\(change)"
            })
        let fetcher = ScriptedFetcher<Int, Int>(.hang())
        let add = Mutation<Int, Int>(
            client: harness.client, options: MutationOptions(scope: "todos", mutationKey: ["todos", "add"]),
            fetcher: fetcher.fetch)
        add.execute(with: 7)
        await fetcher.waitForCalls(1)
        let pending = harness.client.mutations(matching: MutationFilter(key: ["todos"]))
        #expect(pending.map(\.status) == [.pending])
        #expect(pending.first?.request(as: Int.self) == 7)
        #expect(pending.first?.scope == "todos")
        #expect(pending.first?.submittedAt == harness.scheduler.now)
        #expect(harness.client.isMutating(matching: MutationFilter(key: ["todos", "add"], exact: true)) == 1)
        #expect(harness.client.isMutating(matching: MutationFilter(key: ["users"])) == 0)
        fetcher.release(returning: 70)
        await harness.client.waitUntilIdle()
        let settled = harness.client.mutations()
        #expect(settled.map(\.status) == [.success])
        #expect(settled.first?.response as? Int == 70)
        #expect(harness.client.isMutating() == 0)
        #expect(
            events.values == [
                "mutation added #1 todos/add scope todos pending",
                "mutation updated #1 todos/add scope todos success",
            ])
    }

    @Test("a settled call is removed gcTime after it settled; a pending one never is")
    func garbageCollection() async {
        let harness = TestQueryClient()
        let mutation = Mutation<Int, Int>(client: harness.client, options: MutationOptions(gcTime: .seconds(60))) {
            $0
        }
        mutation.execute(with: 1)
        await harness.client.waitUntilIdle()
        harness.client.setOnline(false)
        mutation.execute(with: 2)  // pending, paused for the network
        await harness.advance(by: .seconds(59))
        #expect(harness.client.mutations().count == 2)
        await harness.advance(by: .seconds(1))
        #expect(harness.client.mutations().map(\.status) == [.pending])
        await harness.advance(by: .seconds(3600))
        #expect(harness.client.mutations().map(\.status) == [.pending])
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(60))
        #expect(harness.client.mutations().isEmpty)
    }

    @Test(
        "calls with different gcTimes are each removed on time, whatever order they settled in; clear() leaves no timer"
    )
    func garbageCollectionOrder() async {
        let harness = TestQueryClient()
        let long = Mutation<Int, Int>(client: harness.client, options: MutationOptions(gcTime: .seconds(60))) { $0 }
        let short = Mutation<Int, Int>(client: harness.client, options: MutationOptions(gcTime: .seconds(10))) { $0 }
        let kept = Mutation<Int, Int>(client: harness.client, options: MutationOptions(gcTime: .infinity)) { $0 }
        long.execute(with: 1)
        await harness.client.waitUntilIdle()
        short.execute(with: 2)  // settles after the long one, is due before it
        kept.execute(with: 3)
        await harness.client.waitUntilIdle()
        await harness.advance(by: .seconds(9))
        #expect(harness.client.mutations().compactMap { $0.request(as: Int.self) } == [1, 2, 3])
        await harness.advance(by: .seconds(1))
        #expect(harness.client.mutations().compactMap { $0.request(as: Int.self) } == [1, 3])
        await harness.advance(by: .seconds(50))
        #expect(harness.client.mutations().compactMap { $0.request(as: Int.self) } == [3])
        await harness.advance(by: .seconds(3600))
        #expect(harness.client.mutations().compactMap { $0.request(as: Int.self) } == [3])
        #expect(harness.client.context.timers.count == 0, "nothing is due: no timer is set")

        short.execute(with: 4)
        await harness.client.waitUntilIdle()
        #expect(harness.client.context.timers.count == 1)
        harness.client.clear()
        #expect(harness.client.mutations().isEmpty)
        #expect(harness.client.context.timers.count == 0, "clear() removed every settled call and their timer")
    }

    @Test("one scope runs its calls in submission order, though the later server answers first")
    func scopeOrder() async {
        let harness = TestQueryClient()
        let slow = ScriptedFetcher<Int, Int>(.hang())
        let log = Box<[String]>([])
        let save = Mutation<Int, Int>(client: harness.client, options: MutationOptions(scope: "doc")) { request in
            log.mutate { $0.append("start \(request)") }
            let response = request == 1 ? try await slow.fetch(request) : request
            log.mutate { $0.append("end \(request)") }
            return response
        }
        save.execute(with: 1)
        await slow.waitForCalls(1)
        save.execute(with: 2)
        await harness.until { harness.client.mutations().last?.isPaused == true }
        #expect(log.value == ["start 1"])
        #expect(harness.client.mutations().map(\.isPaused) == [false, true])
        slow.release(returning: 1)
        await harness.client.waitUntilIdle()
        #expect(log.value == ["start 1", "end 1", "start 2", "end 2"])
    }

    @Test("calls submitted from many tasks at once run in submission order within their scope")
    func scopeOrderUnderConcurrency() async {
        let harness = TestQueryClient()
        let started = Box<[Int]>([])
        let mutation = Mutation<Int, Int>(client: harness.client, options: MutationOptions(scope: "s")) { request in
            started.mutate { $0.append(request) }
            await Task.yield()
            return request
        }
        await withTaskGroup(of: Void.self) { group in
            for request in 0..<50 { group.addTask { mutation.execute(with: request) } }
        }
        await harness.client.waitUntilIdle()
        let submitted = harness.client.mutations().compactMap { $0.request(as: Int.self) }
        #expect(submitted.count == 50)
        #expect(started.value == submitted)
    }

    @Test("a failed call does not block its scope; different scopes run in parallel")
    func scopesAfterFailure() async {
        let harness = TestQueryClient()
        let other = ScriptedFetcher<Int, Int>(.hang())
        let failing = Mutation<Int, Int>(client: harness.client, options: MutationOptions(scope: "a")) { _ in
            throw APIError.offline
        }
        let next = Mutation<Int, Int>(client: harness.client, options: MutationOptions(scope: "a")) { $0 }
        let parallel = Mutation(client: harness.client, options: MutationOptions(scope: "b"), fetcher: other.fetch)
        parallel.execute(with: 0)
        await other.waitForCalls(1)
        failing.execute(with: 1)
        #expect((try? await next.mutate(2)) == 2)
        #expect(failing.state.error as? APIError == .offline)
        #expect(parallel.state.isLoading)
        other.release(returning: 0)
        await harness.client.waitUntilIdle()
    }

    @Test("cancelling a pending call cancels its task, runs onError and onSettled, and frees its scope")
    func cancellation() async {
        let harness = TestQueryClient()
        let hanging = ScriptedFetcher<Int, Int>(.hang())
        let log = Box<[String]>([])
        let first = Mutation(
            client: harness.client,
            options: MutationOptions(
                onError: { error, _, _ in log.mutate { $0.append("onError \(error)") } },
                onSettled: { _, _, _, _ in log.mutate { $0.append("onSettled") } }, scope: "s"),
            fetcher: hanging.fetch)
        let second = Mutation<Int, Int>(client: harness.client, options: MutationOptions(scope: "s")) { $0 }
        first.execute(with: 1)
        await hanging.waitForCalls(1)
        second.execute(with: 2)
        first.cancel()
        await harness.client.waitUntilIdle()
        #expect(log.value == ["onError mutation 1 was cancelled", "onSettled"])
        #expect(first.state.error as? MutationError == .cancelled(id: 1))
        #expect(hanging.hangingCount == 0)
        #expect(second.state.value == 2)
    }

    @Test("cancelling the task awaiting mutate cancels the call; cancelMutations reaches waiting calls too")
    func cancellationByTaskAndFilter() async {
        let harness = TestQueryClient()
        let hanging = ScriptedFetcher<Int, Int>(.hang())
        let mutation = Mutation(
            client: harness.client, options: MutationOptions(scope: "s", mutationKey: ["m"]), fetcher: hanging.fetch)
        let caller = Task { try await mutation.mutate(1) }
        await hanging.waitForCalls(1)
        mutation.execute(with: 2)
        caller.cancel()
        await #expect(throws: MutationError.cancelled(id: 1)) { try await caller.value }
        await hanging.waitForCalls(2)
        #expect(harness.client.cancelMutations(matching: MutationFilter(key: ["m"])) == 1)
        await harness.client.waitUntilIdle()
        #expect(harness.client.mutations().map(\.status) == [.error, .error])
    }

    @Test("a call submitted offline is paused and runs when back online; .always runs offline")
    func offline() async {
        let harness = TestQueryClient()
        let fetcher = ScriptedFetcher<Int, Int>(.answer(1))
        let online = Mutation(client: harness.client, fetcher: fetcher.fetch)
        let always = Mutation<Int, Int>(client: harness.client, options: MutationOptions(networkMode: .always)) { $0 }
        harness.client.setOnline(false)
        online.execute(with: 1)
        always.execute(with: 2)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 0)
        #expect(online.isPaused)
        #expect(online.state.isLoading)
        #expect(always.state.value == 2)
        harness.client.setOnline(true)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 1)
        #expect(online.state.value == 1)
        #expect(!online.isPaused)
    }

    @Test("a call holds its task while pending only, also when it settled before its task was handed over")
    func tasksAreHeldWhilePendingOnly() async throws {
        let harness = TestQueryClient()
        let cache = harness.client.mutationCache
        // An immediate fetcher's call ends inside `mutate` before its task is handed to the cache.
        let double = Mutation<Int, Int>(client: harness.client) { $0 * 2 }
        for request in 1...3 { _ = try await double.mutate(request) }
        #expect(cache.heldTaskCount == 0)
        let fetcher = ScriptedFetcher<Int, Int>(.hang())
        let slow = Mutation<Int, Int>(client: harness.client, fetcher: fetcher.fetch)
        slow.execute(with: 1)
        await fetcher.waitForCalls(1)
        #expect(cache.heldTaskCount == 1)
        fetcher.release(returning: 2)
        await harness.client.waitUntilIdle()
        #expect(cache.heldTaskCount == 0)
        #expect(harness.client.mutations().map(\.status) == [.success, .success, .success, .success])
    }
}
