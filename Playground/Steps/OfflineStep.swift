import Loft

let offlineStep = TourStep(title: "Offline and back: a paused fetch resumes on reconnect; focus refetches stale data") {
    tour in
    var lines: [String] = []
    tour.client.setOnline(false)
    let team = Query<Void, [User]>(key: ["team", "offline"], behavior: .startImmediately(()), client: tour.client) {
        try await tour.api.users()
    }
    lines.append("offline: status \(team.snapshot.status.rawValue), fetch \(team.snapshot.fetchStatus.rawValue)")
    tour.client.setOnline(true)
    let resumed = await settled(team)
    lines.append("back online, the paused fetch ran: \(UsersRenderer().view(for: resumed))")

    let stale = Query<Void, [Repo]>(key: ["repos", "stale"], behavior: .startImmediately(()), client: tour.client) {
        try await tour.api.repos(of: 1)
    }
    let fresh = Query<Void, [Repo]>(
        key: ["repos", "fresh"], behavior: .startImmediately(()), options: QueryOptions(staleTime: .seconds(60)),
        client: tour.client
    ) { try await tour.api.repos(of: 1) }
    _ = (await settled(stale), await settled(fresh))
    let focusFetches = Locked<[String]>([])
    let subscription = tour.client.events.sink { event in
        if case .fetchStarted(let key, .focus) = event { focusFetches.withLock { $0.append(key.description) } }
    }
    tour.client.setFocused(false)
    tour.client.setFocused(true)
    await tour.client.waitUntilIdle()
    subscription.cancel()
    let refetched = focusFetches.withLock { $0 }
    lines.append("focus regained: repos/stale \(refetched.contains("repos/stale") ? "refetched" : "kept")")
    lines.append("focus regained: repos/fresh \(refetched.contains("repos/fresh") ? "refetched" : "kept (fresh)")")
    return lines
}
