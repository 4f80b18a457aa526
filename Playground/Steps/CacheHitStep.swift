import Loft

let cacheHitStep = TourStep(title: "Cache hit: fresh data is served without a request") { tour in
    let before = await tour.api.requestCount()
    let repos = try await tour.client.fetchQuery(["users", 1, "repos"], staleTime: .seconds(60)) {
        try await tour.api.repos(of: 1)
    }
    return [
        "served from the cache: \(ReposRenderer().view(for: .succeed(repos)))",
        "new requests: \(await tour.api.requestCount() - before)",
    ]
}
