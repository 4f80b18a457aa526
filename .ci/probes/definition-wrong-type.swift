// Must not compile: a definition's data read as another type, and another type written as its data.
import Loft

struct Profile: Sendable {
    let name: String
}

let profile = QueryDefinition<Int, Profile>(key: "profile", keyAdapter: { key, id in key.appending(id) }) { id in
    Profile(name: "user \(id)")
}

func read(_ client: QueryClient) throws {
    let cached: String? = try client.getQueryData(profile, 42)
    client.setQueryData("Ada", for: profile, 42)
    _ = cached
}
