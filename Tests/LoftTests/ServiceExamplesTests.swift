import Foundation
import Loft
import LoftTesting
import Testing

// Every ```swift block of the article "Loft in a service" (LoftInAService.md) and of the README's service section,
// verbatim.

struct Item: Sendable, Equatable, Codable {
    let id: Int
    var name: String
}

struct ItemChange: Sendable, Equatable {
    let id: Int
    let name: String
}

/// Stands for the service's upstream in the article: items, a catalogue and renames, answered from another
/// thread after the caller went on.
final class ExampleUpstream: Sendable {
    private let names = Locked<[Int: String]>([:])
    private let calls = Locked(0)

    var callCount: Int { calls.withLock { $0 } }

    private func later() async {
        calls.withLock { $0 += 1 }
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
    }

    func item(_ id: Int) async throws -> Item {
        await later()
        return Item(id: id, name: names.withLock { $0[id] } ?? "item \(id)")
    }

    func catalog() async throws -> [Item] {
        await later()
        return [Item(id: 1, name: "item 1")]
    }

    func update(_ change: ItemChange) async throws -> Item {
        await later()
        names.withLock { $0[change.id] = change.name }
        return Item(id: change.id, name: change.name)
    }
}

@Suite(.timeLimit(.minutes(1))) struct ServiceArticleExamplesTests {
    let upstream = ExampleUpstream()

    @Test("the read-through call, per-route times, stale while failing, one mutation, the budget")
    func service() async throws {
        let client = QueryClient(
            defaults: QueryDefaults(staleTime: .seconds(5), gcTime: .seconds(60)),
            memoryBudget: .entries(10_000)
        )
        let item = try await client.fetchQuery(["items", 7]) { try await upstream.item(7) }
        #expect(item == Item(id: 7, name: "item 7"))
        #expect(try await client.fetchQuery(["items", 7]) { try await upstream.item(7) } == item)
        #expect(upstream.callCount == 1)

        let catalog = try await client.fetchQuery(["catalog"], staleTime: .seconds(300), gcTime: .seconds(3_600)) {
            try await upstream.catalog()
        }
        #expect(catalog.count == 1)

        _ = client.invalidateQueries(["items", 7], exact: true)
        let current = try await client.ensureQueryData(["items", 7], revalidateIfStale: true) {
            try await upstream.item(7)
        }
        #expect(current == item)
        await client.until { upstream.callCount == 3 && client.isFetching() == 0 }

        let rename = Mutation<ItemChange, Item>(
            client: client,
            options: MutationOptions(
                onSuccess: { item, _, _ in client.setQueryData(item, for: ["items", item.id]) },
                invalidates: { _, change in [.exact(["items", change.id])] })
        ) { change in try await upstream.update(change) }
        let renamed = try await rename.mutate(ItemChange(id: 7, name: "renamed"))
        #expect(renamed.name == "renamed")
        #expect(try client.getQueryData(["items", 7], as: Item.self)?.name == "renamed")

        let evictions = client.events.sink { event in
            if case .evicted(let key, let reason) = event { print("evicted \(key) (\(reason))") }
        }
        let evicted = client.trim(to: 5_000)
        print("\(evicted) evicted, \(client.memoryUsage) entries kept")
        #expect(evicted == 0 && client.memoryUsage == 2)
        #expect(client.trim(to: 0) == 2)
        evictions.cancel()
    }

    @Test("the README's service section: the read-through call with a budget")
    func readme() async throws {
        let server = QueryClient(
            defaults: QueryDefaults(staleTime: .seconds(5), gcTime: .seconds(60)),
            memoryBudget: .entries(10_000)
        )
        let item = try await server.fetchQuery(["items", 7]) { try await upstream.item(7) }
        #expect(item.id == 7 && server.memoryBudget?.limit == 10_000)
    }
}
