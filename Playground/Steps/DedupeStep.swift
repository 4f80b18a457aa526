import Loft

let dedupeStep = TourStep(title: "Dedupe: three callers at once, one request") { tour in
    let before = await tour.api.requestCount()
    let key: QueryKey = ["users", 1, "repos"]
    async let first = tour.client.fetchQuery(key) { try await tour.api.repos(of: 1) }
    async let second = tour.client.fetchQuery(key) { try await tour.api.repos(of: 1) }
    async let third = tour.client.fetchQuery(key) { try await tour.api.repos(of: 1) }
    let results = try await [first, second, third]
    return [
        "all three got: \(ReposRenderer().view(for: .succeed(results[0])))",
        "identical results: \(results.allSatisfy { $0 == results[0] })",
        "requests for the three: \(await tour.api.requestCount() - before)",
    ]
}
