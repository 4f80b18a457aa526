import Loft
import LoftPostgres
import Testing

@Suite struct ServerRestartTests {
    @Test func aServerThatGoesAwayGivesTypedErrorsAndTheCacheRecoversWhenItIsBack() async throws {
        try await OwnServer.with { server in
            let cache = try PostgresQueryCache(url: server.url, timeout: .seconds(5))
            try await cache.save(Profile(id: 1, name: "Ada"), for: ["user", 1])

            try await server.halt()
            let isUnavailable: @Sendable (any Error) -> Bool = { error in
                guard case .unavailable = error as? CacheError else { return false }
                return true
            }
            await #expect(performing: { try await cache.get(Profile.self, for: ["user", 1]) }, throws: isUnavailable)
            await #expect(
                performing: { try await cache.save(Profile(id: 2, name: "Grace"), for: ["user", 2]) },
                throws: isUnavailable)

            try await server.resume()
            #expect(try await cache.get(for: ["user", 1], as: Profile.self) == Profile(id: 1, name: "Ada"))
            try await cache.save(Profile(id: 2, name: "Grace"), for: ["user", 2])
            #expect(try await cache.get(for: ["user", 2], as: Profile.self) == Profile(id: 2, name: "Grace"))
        }
    }
}
