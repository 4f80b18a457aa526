import Foundation
import Hummingbird
import HummingbirdTesting
import ItemServiceKit
import Loft
import LoftTesting
import Testing

/// The item routes over Loft, against an upstream in the test: reads answered from the cache, one fetch for
/// concurrent readers, a rename seen by the next read, stale data served while the upstream fails.
@Suite(.timeLimit(.minutes(1))) struct ItemRoutesTests {
    /// An upstream that counts its calls and fails when told to.
    final class StubUpstream: ItemUpstream {
        private let state = Locked<(calls: Int, fails: Bool, renamed: [Int: Item])>((0, false, [:]))

        var calls: Int { state.withLock { $0.calls } }

        func fail(_ fails: Bool) {
            state.withLock { $0.fails = fails }
        }

        func item(_ id: Int) async throws -> Item {
            try state.withLock { state in
                state.calls += 1
                if state.fails { throw UpstreamError.status(500) }
                return state.renamed[id] ?? Item(id: id, name: "item \(id)", version: 1)
            }
        }

        func update(_ change: ItemChange) async throws -> Item {
            state.withLock { state in
                let item = Item(id: change.id, name: change.name, version: 2)
                state.renamed[change.id] = item
                return item
            }
        }
    }

    let upstream = StubUpstream()
    let harness = TestQueryClient(defaults: QueryDefaults(staleTime: .seconds(5)), memoryBudget: .entries(100))

    func application() -> some ApplicationProtocol {
        let router = Router()
        let store = LoftItemStore(client: harness.client, upstream: upstream)
        ItemRoutes.add(to: router, store: store)
        return Application(router: router)
    }

    func item(_ response: TestResponse) throws -> Item {
        try JSONDecoder().decode(Item.self, from: Data(buffer: response.body))
    }

    @Test("reads of a fresh item answer from the cache: one upstream call for many reads, concurrent ones too")
    func readThrough() async throws {
        try await application().test(.router) { client in
            try await withThrowingTaskGroup(of: Item.self) { group in
                for _ in 0..<20 { group.addTask { try item(try await client.execute(uri: "/items/7", method: .get)) } }
                for try await read in group { #expect(read == Item(id: 7, name: "item 7", version: 1)) }
            }
            #expect(upstream.calls == 1)
        }
    }

    @Test("a rename through the shared Mutation is seen by the next read")
    func renameSeen() async throws {
        try await application().test(.router) { client in
            _ = try await client.execute(uri: "/items/3", method: .get)
            let put = try await client.execute(
                uri: "/items/3", method: .put, body: ByteBuffer(string: #"{"name":"renamed"}"#))
            #expect(try item(put).name == "renamed")
            #expect(try item(try await client.execute(uri: "/items/3", method: .get)).name == "renamed")
        }
    }

    @Test("while the upstream fails, an item with data is served (stale); one without answers 503")
    func staleWhileFailing() async throws {
        try await application().test(.router) { client in
            _ = try await client.execute(uri: "/items/1", method: .get)
            upstream.fail(true)
            await harness.advance(by: .seconds(6))
            let stale = try await client.execute(uri: "/items/1", method: .get)
            #expect(stale.status == .ok)
            #expect(try item(stale).id == 1)
            #expect(try await client.execute(uri: "/items/2", method: .get).status == .serviceUnavailable)
            await harness.waitUntilIdle()  // the refetch of 1 behind its stale answer has run
            #expect(upstream.calls == 3)  // 1 and 2 once each while it failed, after 1's first fetch
        }
    }
}
