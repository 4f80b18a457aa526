import Loft

let keyAdapterStep = TourStep(title: "A key adapter: one cache entry per user id") { tour in
    let repos = Query<Int, [Repo]>(
        key: "repos", keyAdapter: { key, id in key.appending(id) }, client: tour.client
    ) { id in try await tour.api.repos(of: id) }
    var lines: [String] = []
    for id in [1, 2] {
        repos.refetch(request: id)
        let snapshot = await settled(repos)
        lines.append("user \(id) (key \(repos.key)): \(ReposRenderer().view(for: snapshot))")
    }
    return lines
}
