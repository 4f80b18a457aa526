import Foundation
import LoftTesting
import Testing

@testable import Loft

@Suite struct QueryKeyTests {
    @Test("keys from literals, parts and QueryKey(value:) are equal when their parts are")
    func construction() {
        let literal: QueryKey = ["users", 42]
        #expect(literal == QueryKey("users", 42))
        #expect(QueryKey(value: "users") == "users")
        #expect(QueryKey("users").appending(42) == literal)
        #expect(literal != ["users", "42"])
    }

    @Test("dictionary parts are equal whatever the order of their pairs, and hash alike")
    func dictionaryParts() {
        let a = QueryKey("issues", ["status": "open", "page": 2])
        let b = QueryKey("issues", ["page": 2, "status": "open"])
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a.description == "issues/{page:2,status:open}")
    }

    @Test("hasPrefix: [project, 7] is a prefix of [project, 7, issues] and not of [project, 8]")
    func prefix() {
        let prefix: QueryKey = ["project", 7]
        #expect(QueryKey("project", 7, "issues").hasPrefix(prefix))
        #expect(prefix.hasPrefix(prefix))
        #expect(!QueryKey("project", 8).hasPrefix(prefix))
        #expect(!QueryKey("project").hasPrefix(prefix))
    }

    @Test("every kind of part survives a JSON round trip")
    func codable() throws {
        let id = UUID()
        let key = QueryKey("users", 42, true, 1.0, .uuid(id), ["page": 2, "status": "open"])
        let data = try JSONEncoder().encode(key)
        #expect(try JSONDecoder().decode(QueryKey.self, from: data) == key)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(QueryKey.self, from: Data("[[1]]".utf8)) }
    }

    @Test("the prefix index finds the keys under a prefix, exactly or not, and forgets removed ones")
    func index() {
        var index = KeyIndex()
        for key: QueryKey in [["a", 1], ["a", 1, "x"], ["a", 2], ["b"]] { index.insert(key) }
        #expect(Set(index.keys(withPrefix: ["a", 1])) == [["a", 1], ["a", 1, "x"]])
        #expect(index.keys(withPrefix: ["a", 1], exact: true) == [["a", 1]])
        #expect(index.keys(withPrefix: ["c"]).isEmpty)
        index.remove(["a", 1])
        #expect(index.keys(withPrefix: ["a", 1]) == [["a", 1, "x"]])
        index.remove(["a", 1, "x"])
        #expect(index.keys(withPrefix: ["a"]) == [["a", 2]])
        #expect(index.keys(withPrefix: QueryKey(parts: [])).count == 2)
    }

    @Test("the prefix index finds what a scan finds, through leaves turning into nodes and back", arguments: 0..<4)
    func prefixIndexModel(seed: UInt64) {
        var random = SeededRandom(seed: 0x1DE + seed)
        let parts: [QueryKey.Part] = ["a", "b", 1, 2, ["page": 1], ["page": 1, "status": "open"], ["page": 2]]
        func randomKey() -> QueryKey {
            QueryKey(
                parts: (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    parts[Int.random(in: parts.indices, using: &random)]
                })
        }
        var index = KeyIndex()
        var keys: Set<QueryKey> = []
        for _ in 0..<400 {
            let key = randomKey()
            if Bool.random(using: &random) {
                index.insert(key)
                keys.insert(key)
            } else {
                index.remove(key)
                keys.remove(key)
            }
            let prefix = randomKey()
            #expect(Set(index.keys(withPrefix: prefix)) == keys.filter { $0.hasPrefix(prefix) })
            #expect(index.keys(withPrefix: prefix, exact: true) == (keys.contains(prefix) ? [prefix] : []))
        }
        // Every key removed leaves an index that finds nothing.
        for key in keys { index.remove(key) }
        #expect(index.keys(withPrefix: QueryKey(parts: [])).isEmpty)
    }
}

@Suite struct QueryKeyValuesTests {
    @Test("a key can be made of variables as well as literals")
    func variables() {
        let id = 42
        let name = "users"
        let filter: QueryKey.Part = ["page": 2]
        #expect(QueryKey(name, id) == ["users", 42])
        #expect(QueryKey(name, id, filter) == QueryKey("users", 42, ["page": 2]))
        #expect(QueryKey("users", 42) == ["users", 42])
    }

    @Test("keys built from values: a key literal takes variables of every part type, and interpolation")
    func keysBuiltFromValues() throws {
        let id = 7
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let name = "ada"
        let isOpen = true
        let score = 1.5
        let page = 2
        #expect(["issue", id] == QueryKey(parts: [.string("issue"), .int(7)]))
        #expect(["issue", uuid] == QueryKey(parts: [.string("issue"), .uuid(uuid)]))
        #expect(["user", name] == QueryKey(parts: [.string("user"), .string("ada")]))
        #expect(["flags", isOpen, score] == QueryKey(parts: [.string("flags"), .bool(true), .double(1.5)]))
        // A filter object written in the literal, with values of several types.
        let filter: QueryKey = ["issues", ["status": name, "page": page, "open": isOpen]]
        #expect(filter == QueryKey(parts: [.string("issues"), ["status": "ada", "page": 2, "open": true]]))
        // A typed dictionary held in a variable.
        let filters: [String: String] = ["status": "open"]
        #expect(["issues", QueryKey.Part(filters)] == QueryKey(parts: [.string("issues"), ["status": "open"]]))
        // A part named by its kind, as keys were written before literals took values.
        #expect(["item", .int(id), .double(1.5), .uuid(uuid)] == QueryKey("item", 7, 1.5, .uuid(uuid)))
        #expect(QueryKey("item").appending(.int(id)) == ["item", id])
        // Interpolation makes one string part.
        let label = "inbox"
        let interpolated: QueryKey = "missing-\(label)"
        #expect(interpolated == QueryKey(value: "missing-inbox"))
        // Where a key is a parameter, as in `invalidateQueries`.
        let client = QueryClient(scheduler: TestScheduler())
        client.setQueryData(1, for: ["issue", id])
        #expect(try client.getQueryData(["issue", id], as: Int.self) == 1)
        #expect(client.invalidateQueries(["issue", id]).count == 1)
    }
}
