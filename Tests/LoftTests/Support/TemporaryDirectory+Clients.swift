import Foundation
import LoftTesting

@testable import Loft

extension TemporaryDirectory {
    /// A client of a fresh process on the folder's JSON-file cache: a new clock at the same epoch and a new
    /// cache instance, on `fileSystem`.
    func launch(
        _ config: QueryCacheConfig = QueryCacheConfig(), fileSystem: any FileSystem = POSIXFileSystem()
    ) -> TestQueryClient {
        TestQueryClient(
            cache: JSONFileQueryCache(directory: url, byteQuota: nil, fileSystem: fileSystem), cacheConfig: config)
    }

    /// The user stored under `key` in the folder, as a new cache instance reads it.
    func stored(_ key: QueryKey) throws -> User? {
        try JSONFileQueryCache(directory: url).get(for: key)
    }
}

/// A query that persists `key` in `client`'s cache (nothing fetched but a placeholder user, never retried).
func persisted(_ key: QueryKey, in client: QueryClient) -> Query<Void, User> {
    Query(key: key, options: QueryOptions(retry: .never), client: client) { User(id: 0, name: "fetched") }
}
