import Foundation
import Loft
import Testing

/// The article "Queries as definitions", compiled and run.
@Suite(.timeLimit(.minutes(1))) struct DefinitionArticleExamplesTests {
    @Test("definitions: declared once, used by queries, consumers, the client and mutations")
    func definitions() async throws {
        let api = ExampleAPI()  // its own server: the other examples' renames do not reach it, nor its theirs
        let client = QueryClient()
        let profileByID = QueryDefinition<Int, Profile>(
            key: "profile",
            keyAdapter: { key, id in key.appending(id) },
            options: QueryOptions(staleTime: .seconds(60))
        ) { id in
            try await api.profile(id)
        }
        let everyone = QueryDefinition<Void, [Profile]>(key: "everyone") { try await api.profiles() }

        let profile = Query(profileByID, behavior: .startImmediately(42), client: client)
        let header = Consumer(profileByID, 42, client: client)
        let list = Query(everyone, behavior: .startImmediately(()), client: client)
        await client.waitUntilIdle()
        #expect(profile.state.value == header.state.value && header.state.value?.id == 42)
        #expect(list.state.value?.isEmpty == false)

        let ada = try await client.fetchQuery(profileByID, 42)  // a Profile
        await client.prefetchQuery(profileByID, 7)
        let grace = try await client.ensureQueryData(profileByID, 7)
        let cached = try client.getQueryData(profileByID, 42)  // a Profile?
        client.setQueryData(Profile(id: 42, name: "Ada"), for: profileByID, 42)
        let shown = try client.snapshot(for: profileByID, 42).data
        client.invalidateQueries(profileByID)  // every profile: the base key as prefix
        let all = try await client.fetchQuery(everyone)
        #expect(ada.id == 42 && grace.id == 7 && cached == ada)
        #expect(shown?.name == "Ada" && !all.isEmpty)
        #expect(profileByID.key(for: 7) == ["profile", 7])
        await client.waitUntilIdle()

        let renameProfile = MutationDefinition<String, Profile>(
            key: ["profile", "rename"], options: MutationOptions(retry: .count(2))
        ) { name, call in
            try await api.rename(42, to: name)
        }
        client.setMutationDefaults(renameProfile)
        let rename = Mutation(renameProfile, client: client)
        #expect(try await rename.mutate("Lovelace").name == "Lovelace")
    }
}
