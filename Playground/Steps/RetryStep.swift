import Loft

let retryStep = TourStep(
    title: "A failing fetch is retried, then fails; the last good data stays visible"
) { tour in
    let retry = RetryPolicy.custom { failures, _ in failures <= 2 ? .milliseconds(150) : nil }
    let flaky = Query<Void, [User]>(key: "flaky", options: QueryOptions(retry: retry), client: tour.client) {
        try await tour.api.flaky()
    }
    tour.client.setQueryData([User(id: 0, name: "Last Known Good")], for: "flaky")
    let before = await tour.api.requestCount()
    flaky.refetch()
    let snapshot = await settled(flaky)
    return [
        "shown: \(UsersRenderer().view(for: snapshot))",
        "attempts: \(await tour.api.requestCount() - before) (failureCount \(snapshot.failureCount))",
        "status \(snapshot.status.rawValue), fetch status \(snapshot.fetchStatus.rawValue)",
    ]
}
