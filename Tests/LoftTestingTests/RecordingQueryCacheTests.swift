import LoftTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct RecordingQueryCacheTests {
    @Test("a query's save, a read and a removal are recorded in order, and reach the wrapped cache")
    func recordsCalls() async throws {
        let memory = InMemoryQueryCache()
        let cache = RecordingQueryCache(memory)
        let test = TestQueryClient(cache: cache)
        let user = Query<Void, String>(key: ["user", 1], behavior: .startImmediately(()), client: test.client) {
            "Ada"
        }
        await test.until { user.state.value != nil }
        await test.client.flush()
        #expect(cache.saves == [[["user", 1]]])
        #expect(try memory.get(for: ["user", 1], as: String.self) == "Ada")
        #expect(try cache.get(for: ["user", 1], as: String.self) == "Ada")
        try cache.remove(for: ["user", 1])
        try cache.removeAll()
        #expect(cache.reads == [["user", 1]])
        #expect(cache.removals == [["user", 1]])
        #expect(cache.calls.suffix(3) == [.get(["user", 1]), .remove(["user", 1]), .removeAll])
        #expect(memory.count == 0)
    }

    @Test("a write made to fail reports its error and is not stored; the rest of its burst is")
    func failingWrite() throws {
        let memory = InMemoryQueryCache()
        let cache = RecordingQueryCache(memory)
        let full = CacheError.exceedsQuota(key: "b", bytes: 10, quota: 1)
        cache.fail("b", with: full)
        let at = TestScheduler.epoch
        let failures = cache.save([
            CacheWrite(key: "a", value: 1, savedAt: at), CacheWrite(key: "b", value: 2, savedAt: at),
        ])
        #expect(failures.keys.sorted { $0.description < $1.description } == ["b"])
        #expect(try memory.get(for: "a", as: Int.self) == 1)
        #expect(try memory.get(for: "b", as: Int.self) == nil)
        #expect(throws: CacheError.self) { try cache.save(3, for: "b", savedAt: at, expiresAt: nil) }
        #expect(cache.saves == [["a", "b"], ["b"]])
    }

    @Test("without listing, keys(under:) throws unavailable, as a provider that cannot list its keys does")
    func unlisted() throws {
        let cache = RecordingQueryCache(listsKeys: false)
        try cache.save(1, for: ["journal", 1])
        #expect(throws: CacheError.self) { try cache.keys(under: "journal") }
        #expect(try RecordingQueryCache(cache.wrapped).keys(under: "journal") == [["journal", 1]])
        #expect(cache.calls.last == .keys(under: "journal"))
    }
}
