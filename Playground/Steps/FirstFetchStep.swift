import Loft

let firstFetchStep = TourStep(title: "First fetch: a Query loads the user list") { tour in
    var lines = ["before: \(UsersRenderer().view(for: tour.users.state))"]
    tour.users.refetch()
    lines.append("while fetching: \(UsersRenderer().view(for: tour.users.state))")
    let snapshot = await settled(tour.users)
    lines.append("after: \(UsersRenderer().view(for: snapshot))")
    lines.append("requests so far: \(await tour.api.requestCount())")
    return lines
}
