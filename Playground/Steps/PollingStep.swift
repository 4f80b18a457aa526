import Loft

let pollingStep = TourStep(title: "Polling: a query refetches every 250 ms while it exists") { tour in
    let clock = Query<Void, Int>(
        key: "time", behavior: .startImmediately(()), pollingBehavior: .pollEvery(.milliseconds(250)),
        client: tour.client
    ) { try await tour.api.serverTime() }
    var lines: [String] = []
    for await snapshot in clock.snapshotPublisher.values where snapshot.fetchStatus == .idle && snapshot.data != nil {
        lines.append(TimeRenderer().view(for: snapshot))
        if lines.count == 3 { break }
    }
    lines.append("(the query is released after this step, and its polling stops)")
    return lines
}
