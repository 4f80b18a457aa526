import LoftTesting
import Testing

/// A client on a virtual clock, and what the tests need around it.
struct Harness {
    let scheduler = TestScheduler()
    let client: QueryClient
    let events: PublisherRecorder<QueryCacheEvent>

    init(
        defaults: QueryDefaults = QueryDefaults(), cache: (any QueryCacheType)? = nil,
        cacheConfig: QueryCacheConfig? = nil
    ) {
        client = QueryClient(cache: cache, cacheConfig: cacheConfig, defaults: defaults, scheduler: scheduler)
        events = PublisherRecorder(client.events)
    }

    /// Advances the clock, then waits until the work it woke has run.
    func advance(by duration: Duration) async {
        scheduler.advance(by: duration)
        await client.waitUntilIdle()
    }

    /// The reasons of every fetch started so far for `key`.
    func fetchReasons(_ key: QueryKey) -> [FetchReason] {
        events.values.compactMap {
            if case .fetchStarted(let eventKey, let reason) = $0, eventKey == key { return reason }
            return nil
        }
    }

    func observerCount(_ key: QueryKey) -> Int {
        client.existingEntry(for: key)?.snapshot.observerCount ?? 0
    }
}

enum APIError: Error, Equatable, HTTPStatusError {
    case offline
    case status(Int)

    var httpStatusCode: Int? {
        if case .status(let code) = self { return code }
        return nil
    }
}

struct User: Sendable, Equatable, Codable {
    let id: Int
    var name: String
}

/// An object whose release a test watches through a weak reference.
final class Marker: Sendable {}
