import Foundation
import Testing

@testable import Loft

/// The idempotency keys of mutation calls: UUIDs in form, never repeated, different in every process.
@Suite struct IdempotencyKeysTests {
    @Test("a key is a version 4 UUID with the RFC 4122 variant, upper-case, that Foundation parses back")
    func form() {
        var keys = IdempotencyKeys()
        for _ in 0..<1_000 {
            let key = keys.next().string
            let uuid = UUID(uuidString: key)
            #expect(uuid?.uuidString == key, "\(key) reads back as the same UUID")
            let characters = Array(key)
            #expect(characters.count == 36)
            #expect(characters[14] == "4", "version 4: \(key)")
            #expect("89AB".contains(characters[19]), "variant 10xx: \(key)")
        }
    }

    @Test("100,000 keys of one generator are all different, and two generators (two processes) share none")
    func unique() {
        var first = IdempotencyKeys()
        var second = IdempotencyKeys()
        var seen = Set<String>()
        for _ in 0..<100_000 { seen.insert(first.next().string) }
        #expect(seen.count == 100_000)
        let other = (0..<1_000).map { _ in second.next().string }
        #expect(seen.isDisjoint(with: other))
    }

    @Test("a key equals another exactly when their text is equal, made here or restored from its text")
    func equality() {
        var keys = IdempotencyKeys()
        let (made, other) = (keys.next(), keys.next())
        let restored = IdempotencyKey(.restored(made.string))
        #expect(made == restored && restored == made)
        #expect(Set([made, restored]).count == 1, "equal keys hash alike")
        #expect(made != other && restored != other)
        #expect(restored.string == made.string)
    }
}
