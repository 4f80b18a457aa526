import LoftTesting
import Testing

@testable import Loft

/// The client's prefix index: made by the first lookup under a prefix, kept in step after (row (i)).
@Suite struct PrefixIndexTests {
    private func hasIndex(_ client: QueryClient) -> Bool {
        client.state.withLock { $0.index != nil }
    }

    @Test("a client used by key alone keeps no prefix index: exact and whole-cache lookups read the table")
    func noIndexByKey() async throws {
        let harness = TestQueryClient()
        let client = harness.client
        for id in 0..<3 { _ = try await client.fetchQuery(["item", id]) { id } }
        client.setQueryData(9, for: ["other"])
        #expect(client.entries(matching: ["item", 1], exact: true).map(\.key) == [["item", 1]])
        #expect(client.entries(matching: ["item"], exact: true).isEmpty)
        #expect(Set(client.entries(matching: QueryKey(parts: []), exact: false).map(\.key)).count == 4)
        client.invalidateQueries(["item", 2], exact: true)
        #expect(client.existingEntry(for: ["item", 2])?.snapshot.isInvalidated == true)
        #expect(!hasIndex(client))
    }

    @Test("the first lookup under a prefix makes the index from every key; keys added and removed after are seen")
    func madeOnFirstPrefixLookup() async throws {
        let harness = TestQueryClient()
        let client = harness.client
        for id in 0..<3 { client.setQueryData(id, for: ["item", id]) }
        client.setQueryData(0, for: ["item", 0, "notes"])
        client.setQueryData(9, for: ["other"])
        #expect(!hasIndex(client))
        #expect(Set(client.entries(matching: ["item"], exact: false).map(\.key)).count == 4)
        #expect(hasIndex(client))
        client.setQueryData(3, for: ["item", 3])
        client.removeQueries(["item", 0], exact: true)
        #expect(
            Set(client.entries(matching: ["item"], exact: false).map(\.key))
                == [["item", 1], ["item", 2], ["item", 3], ["item", 0, "notes"]])
        #expect(client.entries(matching: ["item", 0], exact: false).map(\.key) == [["item", 0, "notes"]])
    }
}
