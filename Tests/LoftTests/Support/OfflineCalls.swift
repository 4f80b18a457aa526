import Foundation
import LoftTesting

@testable import Loft

/// Mutation calls saved while offline, as a first run leaves them for the next (the restart the journal's
/// tests make).
enum OfflineCalls {
    /// Saves `requests` as paused calls of `key` in `folder`'s cache, by a client that then goes away; returns
    /// their idempotency keys, in order.
    @discardableResult
    static func save(_ requests: [String], key: QueryKey, in folder: TemporaryDirectory) async -> [String] {
        let client = QueryClient(
            cache: JSONFileQueryCache(directory: folder.url), scheduler: TestScheduler(), isOnline: false)
        let add = Mutation<String, Int>(client: client, options: MutationOptions(mutationKey: key)) { $0.count }
        for request in requests { add.execute(with: request) }
        await client.waitUntilIdle()
        return client.mutationCache.journal.records.map(\.idempotencyKey)
    }
}
