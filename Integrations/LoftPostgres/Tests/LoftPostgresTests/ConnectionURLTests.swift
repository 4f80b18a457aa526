import Loft
import LoftPostgres
import LoftTesting
import Testing

/// The URL parser reads what a user (or an environment) wrote: it answers every string with a configuration
/// or a typed error, never a crash, and reads back every URL made from valid parts.
@Suite struct ConnectionURLTests {
    @Test func anyStringIsAConfigurationOrATypedError() {
        var random = SeededRandom(seed: 0x10F7)
        let alphabet = Array("postgres:/@%:.0123456789abAZ_-?#[]ü🚀\u{0} ")
        var parsed = 0
        for _ in 0..<20_000 {
            let prefix = random.next() % 3 == 0 ? "" : "postgres://"
            let text =
                prefix
                + String(
                    (0..<Int(random.next() % 40)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            do {
                let configuration = try PostgresCacheConfiguration(url: text)
                #expect(!configuration.host.isEmpty && !configuration.username.isEmpty)
                #expect((1...65_535).contains(configuration.port))
                parsed += 1
            } catch {
                guard case .unavailable = error else {
                    Issue.record("\(text) threw \(error)")
                    return
                }
            }
        }
        #expect(parsed > 0)
    }

    @Test func urlsMadeFromPartsReadBack() throws {
        var random = SeededRandom(seed: 42)
        let characters = Array("abcXYZ019_.-")
        func word() -> String {
            String((0..<(1 + Int(random.next() % 12))).map { _ in characters[Int(random.next() % 12)] })
        }
        for _ in 0..<2_000 {
            let (user, host, database, port) = (word(), word(), word(), 1 + Int(random.next() % 65_535))
            let configuration = try PostgresCacheConfiguration(url: "postgres://\(user)@\(host):\(port)/\(database)")
            #expect(configuration.username == user)
            #expect(configuration.host == host)
            #expect(configuration.port == port)
            #expect(configuration.database == database)
        }
    }
}
