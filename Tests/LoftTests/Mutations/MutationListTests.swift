import LoftTesting
import Testing

@testable import Loft

/// `MutationList`: the calls of a key followed from another screen.
@Suite struct MutationListTests {
    @Test("pending calls show as rows while they run, in submission order, and leave when they settle")
    func optimisticRows() async {
        let harness = TestQueryClient()
        let server = ScriptedFetcher<String, Int>(.hang())
        let add = Mutation<String, Int>(
            client: harness.client, options: MutationOptions(mutationKey: ["todos", "add"]), fetcher: server.fetch)
        let rows = MutationList(
            matching: MutationFilter(key: ["todos"], status: .pending), client: harness.client
        ) { $0.request(as: String.self) ?? "?" }
        let sent = PublisherRecorder(rows.callsPublisher)
        #expect(rows.calls.isEmpty)
        add.execute(with: "milk")
        add.execute(with: "eggs")
        await server.waitForCalls(2)
        #expect(rows.calls == ["milk", "eggs"])
        server.release(returning: 1)
        await harness.client.waitUntilIdle()
        #expect(rows.calls.isEmpty)
        #expect(harness.client.mutations().map(\.status) == [.success, .success])
        #expect(sent.values.first == [])
        #expect(sent.values.contains(["milk", "eggs"]))
        #expect(sent.values.last == [])
    }

    @Test("calls of other keys change nothing; a released list stops following")
    func otherKeys() async throws {
        let harness = TestQueryClient()
        var list: MutationList<MutationInfo>? = MutationList(
            matching: MutationFilter(key: ["todos"]), client: harness.client)
        let sent = try PublisherRecorder(#require(list).callsPublisher.map { $0.map(\.id) })
        let other = Mutation<Int, Int>(client: harness.client, options: MutationOptions(mutationKey: ["users"])) { $0 }
        try await other.mutate(1)
        #expect(sent.values == [[]])
        let todo = Mutation<Int, Int>(client: harness.client, options: MutationOptions(mutationKey: ["todos"])) { $0 }
        try await todo.mutate(2)
        #expect(list?.calls.map(\.id) == [2])
        weak let released = list
        list = nil
        #expect(released == nil)
        try await todo.mutate(3)
        #expect(sent.values.last == [2])
    }
}
