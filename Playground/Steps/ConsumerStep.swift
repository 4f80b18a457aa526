import Loft

let consumerStep = TourStep(title: "Another screen: a Consumer shares the same state, without fetching") { tour in
    let before = await tour.api.requestCount()
    let header = Query<Void, [User]>.Consumer(key: "users", client: tour.client)
    return [
        "the header shows: \(UsersRenderer().view(for: header.state))",
        "new requests: \(await tour.api.requestCount() - before)",
    ]
}
