import Testing

@testable import Loft

/// The tag index: which keys a tag reaches.
@Suite struct TagIndexTests {
    @Test("a tag reaches the keys with a tag it covers, exactly the tag with exact, and forgets removed keys")
    func coverage() {
        var index = TagIndex()
        index.add(["todos", ["todo", 7]], to: ["todo", 7])
        index.add(["todos", ["todo", 8]], to: ["todo", 8])
        index.add([["todo", 8, "comments"]], to: ["comments", 8])
        index.add(["users"], to: ["user", 1])
        #expect(index.keys(tagged: ["todo", 7]) == [["todo", 7]])
        #expect(index.keys(tagged: "todo") == [["todo", 7], ["todo", 8], ["comments", 8]])
        #expect(index.keys(tagged: ["todo", 8]) == [["todo", 8], ["comments", 8]])
        #expect(index.keys(tagged: ["todo", 8], exact: true) == [["todo", 8]])
        #expect(index.keys(tagged: "todos") == [["todo", 7], ["todo", 8]])
        #expect(index.keys(tagged: "nothing").isEmpty)
        index.remove(["todo", 8])
        #expect(index.keys(tagged: "todos") == [["todo", 7]])
        #expect(index.keys(tagged: ["todo", 8]) == [["comments", 8]])
        #expect(index.tags(of: ["todo", 7]) == ["todos", ["todo", 7]])
        index.remove(["todo", 7])
        index.remove(["comments", 8])
        index.remove(["user", 1])
        #expect(index.isEmpty)
        #expect(index.keys(tagged: "todo").isEmpty)
    }

    @Test("a tag given twice to a key is kept once and removed with the key")
    func duplicates() {
        var index = TagIndex()
        index.add(["a", "a"], to: "k")
        index.add(["a"], to: "k")
        #expect(index.tags(of: "k") == ["a"])
        index.remove("k")
        #expect(index.isEmpty)
        #expect(index.keys(tagged: "a").isEmpty)
    }
}
