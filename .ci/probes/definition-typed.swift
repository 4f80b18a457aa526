// Compiles: the data of a definition has the definition's type. Its twin, definition-wrong-type.swift, must
// not (CI checks both).
import Loft

struct Profile: Sendable {
    let name: String
}

let profile = QueryDefinition<Int, Profile>(key: "profile", keyAdapter: { key, id in key.appending(id) }) { id in
    Profile(name: "user \(id)")
}

func read(_ client: QueryClient) throws {
    let cached: Profile? = try client.getQueryData(profile, 42)
    client.setQueryData(Profile(name: "Ada"), for: profile, 42)
    _ = cached
}
