import Foundation
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
}
