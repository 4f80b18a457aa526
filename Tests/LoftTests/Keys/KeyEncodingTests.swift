import Foundation
import Testing

@testable import Loft

/// A key's JSON is what the disk cache names its files after and what hydration carries: two different keys
/// must never encode alike, and every key must decode back to itself.
@Suite struct KeyEncodingTests {
    static let uuidText = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

    /// Parts of every kind, with the ones that look like another kind's encoding.
    static func parts() throws -> [QueryKey.Part] {
        let uuid = try #require(UUID(uuidString: uuidText))
        let scalars: [QueryKey.Part] = [
            "a", "1", "true", "double", "uuid", "dictionary", "nan", "+inf", .string(uuidText), "", 0, 1, -1,
            .int(Int.max), true, false, 0.0, 1.0, 1.5, -2.25, .double(.infinity), .double(-.infinity),
            .double(-0.0), .double(.nan), .uuid(uuid),
        ]
        let dictionaries: [QueryKey.Part] = [
            ["double": 1], ["double": 1.0], ["double": "nan"], ["double": "+inf"], ["uuid": .string(uuidText)],
            ["uuid": .uuid(uuid)], ["dictionary": ["a": 1]], ["dictionary": 1], ["dictionary": [:]], ["a": 1], [:],
            ["double": 1, "x": 2], ["uuid": .uuid(uuid), "double": 1.5], ["a": ["double": 1]], ["a": ["b": [:]]],
        ]
        return scalars + dictionaries + scalars.map { ["double": $0] } + scalars.map { ["n": ["uuid": $0]] }
    }

    /// Distinct keys of one part, of a prefix and a part, and of two parts.
    static func keys() throws -> [QueryKey] {
        let parts = try parts()
        let all =
            parts.map { QueryKey(parts: [$0]) } + parts.map { QueryKey(parts: ["k", $0]) }
            + zip(parts, parts.reversed()).map { QueryKey(parts: [$0, $1]) }
        var seen = Set<QueryKey>()
        return all.filter { seen.insert($0).inserted }
    }

    @Test("every key decodes back to exactly itself, through JSON and through a dehydrated state")
    func exactRoundTrip() throws {
        for key in try Self.keys() {
            let decoded = try JSONDecoder().decode(QueryKey.self, from: JSONEncoder().encode(key))
            #expect(decoded == key, "\(key) came back as \(decoded)")
        }
        let client = QueryClient()
        let keys = try Self.keys()
        for (index, key) in keys.enumerated() { client.setQueryData(index, for: key) }
        let restored = QueryClient()
        restored.hydrate(try JSONDecoder().decode(DehydratedState.self, from: JSONEncoder().encode(client.dehydrate())))
        for (index, key) in keys.enumerated() {
            #expect(try restored.getQueryData(key, as: Int.self) == index, "\(key)")
        }
    }

    @Test("two different keys never share a file name; equal keys (0.0 and -0.0) always do")
    func distinctKeysDistinctFiles() throws {
        let keys = try Self.keys()
        var names: [String: QueryKey] = [:]
        for key in keys {
            let name = CacheFileName.direct(key) ?? CacheFileName.hashed(key, probe: 0)
            if let other = names[name] {
                #expect(other == key, "\(other) and \(key) share \(name)")
            }
            names[name] = key
        }
        #expect(CacheFileName.direct(QueryKey(parts: [.double(-0.0)])) == CacheFileName.direct(QueryKey(parts: [0.0])))
        #expect(names.count == keys.count)
    }

    @Test("a long (hashed) key is found again after every restart: its probe is reused, not a new one taken")
    func hashedKeyIsFoundAfterRestarts() throws {
        let folder = TemporaryDirectory()
        let key = QueryKey(parts: [.string(String(repeating: "long", count: 80)), ["double": 1], .double(.infinity)])
        #expect(CacheFileName.direct(key) == nil)
        for restart in 0..<12 {
            let cache = JSONFileQueryCache(directory: folder.url)
            try cache.save(restart, for: key, savedAt: SchedulerInstant(secondsSinceEpoch: 0), expiresAt: nil)
            #expect(try cache.get(Int.self, for: key)?.value == restart)
        }
        #expect(folder.names.count == 1)
    }

    @Test("a key with a NaN part equals itself, finds its entry and its record, and reads back from JSON")
    func nanPartIsOneKey() throws {
        // Found by the key fuzzer: NaN != NaN made such a key unequal to itself, so its entry was never found.
        let key = QueryKey(parts: ["n", .double(.nan)])
        let otherNaN = QueryKey(parts: ["n", .double(-Double(nan: 7, signaling: false))])
        #expect(key == key)
        #expect(key == otherNaN && key.hashValue == otherNaN.hashValue)
        #expect(key != QueryKey(parts: ["n", .double(0)]))
        #expect(try JSONDecoder().decode(QueryKey.self, from: JSONEncoder().encode(key)) == key)
        let client = QueryClient()
        client.setQueryData("value", for: key)
        #expect(try client.getQueryData(otherNaN, as: String.self) == "value")
        let folder = TemporaryDirectory()
        let cache = JSONFileQueryCache(directory: folder.url)
        try cache.save("saved", for: key, savedAt: SchedulerInstant(secondsSinceEpoch: 0), expiresAt: nil)
        #expect(try JSONFileQueryCache(directory: folder.url).get(String.self, for: otherNaN)?.value == "saved")
    }
}
