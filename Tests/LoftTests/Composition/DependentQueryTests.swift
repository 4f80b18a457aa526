import LoftTesting
import Testing

@testable import Loft

@Suite struct DependentQueryTests {
    @Test("a dependent query does not fetch until its input exists, then fetches with the derived request")
    func waitsForInput() async {
        let harness = TestQueryClient()
        let userFetcher = ScriptedFetcher<Int, User>(.hang())
        let projectsFetcher = ScriptedFetcher<Int, [String]>(.answer(["loft"]), .answer(["signals"]))
        let user = Query(
            key: "user", keyAdapter: { $0.appending($1) }, behavior: .startImmediately(1), client: harness.client,
            fetcher: userFetcher.fetch)
        let projects = Query(
            key: "projects", keyAdapter: { $0.appending($1) }, client: harness.client,
            fetcher: projectsFetcher.fetch)
        projects.follow(user.valuePublisher) { user in user.id * 10 }
        await userFetcher.waitForCalls(1)
        #expect(projects.snapshot.status == .pending)
        #expect(projects.snapshot.fetchStatus == .idle)
        #expect(projectsFetcher.callCount == 0)

        userFetcher.release(returning: User(id: 7, name: "Ada"))
        await harness.client.waitUntilIdle()
        #expect(projectsFetcher.requests == [70])
        #expect(projects.state.value == ["loft"])
        #expect(projects.key == ["projects", 70])

        // A new input value moves the dependent query to the new request.
        harness.client.setQueryData(User(id: 8, name: "Grace"), for: ["user", 1])
        await harness.client.waitUntilIdle()
        #expect(projectsFetcher.requests == [70, 80])
        #expect(projects.state.value == ["signals"])
    }

    @Test("a nil request leaves the dependent query alone, and releasing it cancels the link")
    func nilRequestAndRelease() async {
        let harness = TestQueryClient()
        let source = PassthroughSubject<Int?, Never>()
        let fetcher = ScriptedFetcher<Int, Int>(.answer(1))
        var query: Query<Int, Int>? = Query(
            key: "q", keyAdapter: { $0.appending($1) }, client: harness.client, fetcher: fetcher.fetch)
        query?.follow(source) { $0 }
        source.send(nil)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 0)
        weak let watched = query
        query = nil
        #expect(watched == nil)
        source.send(3)
        await harness.client.waitUntilIdle()
        #expect(fetcher.callCount == 0)
    }
}
