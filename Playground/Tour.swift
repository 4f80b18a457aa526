import Foundation
import Loft

/// One numbered step of the tour: a title and what it prints.
struct TourStep: Sendable {
    let title: String
    let run: @Sendable (TourContext) async throws -> [String]
}

/// What the steps share: the API, the client, and the objects a later step reuses.
final class TourContext: Sendable {
    let api: any TourAPI
    let client: QueryClient
    let users: Query<Void, [User]>
    /// Where the persistence steps keep their files.
    let cacheDirectory: URL
    /// The provider they save with.
    let cache: PlaygroundTour.Cache

    init(api: any TourAPI, client: QueryClient, cacheDirectory: URL, cache: PlaygroundTour.Cache) {
        self.api = api
        self.client = client
        self.cacheDirectory = cacheDirectory
        self.cache = cache
        users = Query(key: "users", options: QueryOptions(retry: .never, tags: ["users"]), client: client) {
            try await api.users()
        }
    }
}

/// Waits until `query` has settled: nothing fetching, and data or an error to show.
func settled<Request, Response>(_ query: Query<Request, Response>) async -> QuerySnapshot<Response> {
    for await snapshot in query.snapshotPublisher.values
    where snapshot.fetchStatus == .idle && snapshot.status != .pending {
        return snapshot
    }
    return query.snapshot
}

let queryTour: [TourStep] = [
    firstFetchStep, consumerStep, dedupeStep, cacheHitStep, staleWhileRevalidateStep, retryStep, mutationStep,
    optimisticLikeStep, scopeOrderStep, pollingStep, keyAdapterStep, pagesStep, offlineStep, offlineMutationStep,
    persistedCacheStep,
]
